// mean.dim: shapes for every dim/keepdim form, closed form, optimized vs reference, also on
// channels-last inputs.
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

// A channels-last self (runtime/passes/layout.h; torch's core IR writes a squeeze-excitation pool
// as mean.dim over H, W), the output plain or asked channels-last: the optimized kernel
// equals the reference on the plain copy, for the global pool and every other dim set.
TEST(Mean, ChannelsLastMatchesReference) {
  std::mt19937 rng(test_seed());
  const std::vector<int64_t> shapes[] = {
      {1, 72, 28, 28}, {2, 37, 5, 7}, {2, 19, 1, 1}, {2, 130, 3, 4}};
  const std::vector<int64_t> dim_sets[] = {{-1, -2}, {2, 3}, {1}, {2}, {0, 2}, {}, {1, 2, 3}};
  for (const auto& xs : shapes) {
    const Buffer x = Buffer::random(rng, xs);
    for (const auto& dims : dim_sets) {
      for (bool keepdim : {true, false}) {
        const RunResult want = run_kernel(mean_call(x, dims, keepdim));
        ASSERT_TRUE(want.status.ok()) << want.status.message();
        for (bool out_cl : {false, true}) {
          SCOPED_TRACE(shape_str(xs) + " dims " + shape_str(dims) + (keepdim ? " keepdim" : "") +
                       (out_cl ? " -> cl" : " -> plain"));
          RunOptions o;
          o.impl = KernelImpl::kOptimized;
          o.channels_last = out_cl;
          o.repeat_runs = 2;
          const RunResult got = run_kernel(mean_call(x.channels_last(), dims, keepdim), o);
          ASSERT_TRUE(got.status.ok()) << got.status.message();
          EXPECT_TRUE(all_close(got.outputs[0], want.outputs[0], 1e-5, 1e-6));
          const Tensor& y = got.layouts[0];
          EXPECT_TRUE(out_cl && y.rank == 4 ? y.is_channels_last() : y.is_contiguous());
        }
      }
    }
  }
  const Buffer x = Buffer::f32({1, 3, 2, 2}).channels_last();  // the reference reads plain only
  EXPECT_EQ(run_kernel(mean_call(x, std::vector<int64_t>{2, 3}, true)).status.code(),
            StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tir::kernels::testing
