// mean.dim: shapes for every dim/keepdim form, closed form, optimized vs reference.
#include <gtest/gtest.h>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

CallBuilder mean_call(Buffer x, std::optional<std::vector<int64_t>> dims, bool keepdim) {
  CallBuilder cb("aten::mean.dim");
  cb.tensor(x);
  if (dims) {
    cb.ints(*dims);
  } else {
    cb.none();
  }
  cb.b(keepdim).none();
  return cb;
}

TEST(Mean, ShapesAndClosedForm) {
  // x[i, j] = 3*i + j over [2, 3]: row means 1, 4; column means 1.5, 2.5, 3.5; all 2.5
  Buffer x = Buffer::f32({2, 3}, {0, 1, 2, 3, 4, 5});
  RunResult r = run_kernel(mean_call(x, std::vector<int64_t>{-1}, false));
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2}));
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(1), 4.f);
  r = run_kernel(mean_call(x, std::vector<int64_t>{0}, true));
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(2), 3.5f);
  r = run_kernel(mean_call(x, std::nullopt, false));
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{}));
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(0), 2.5f);
  r = run_kernel(mean_call(x, std::vector<int64_t>{}, true));
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{1, 1}));
}

TEST(Mean, Rejects) {
  RunResult r = run_kernel(mean_call(Buffer::f32({2, 3}), std::vector<int64_t>{1, -1}, false));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("multiple"), std::string::npos);
  r = run_kernel(mean_call(Buffer::f32({2, 3}), std::vector<int64_t>{2}, false));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("dim"), std::string::npos);
}

TEST(Mean, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 30; ++c) {
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<int64_t> xs;
    for (int d = 0; d < rank; ++d) xs.push_back(std::uniform_int_distribution<int64_t>(1, 9)(rng));
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) {
      if (std::uniform_int_distribution<int>(0, 1)(rng)) dims.push_back(d - (c % 2) * rank);
    }
    SCOPED_TRACE("case " + std::to_string(c) + " " + shape_str(xs) + " dims " + shape_str(dims));
    expect_opt_matches_ref(mean_call(Buffer::random(rng, xs), dims, c % 3 == 0), 1e-5, 1e-6);
  }
}

}  // namespace
}  // namespace tir::kernels::testing
