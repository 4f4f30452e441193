// Inference batch norm: closed form on known statistics, optimized vs reference.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

CallBuilder bn_call(std::mt19937& rng, std::vector<int64_t> xs, bool native, bool affine) {
  const int64_t c = xs[1];
  CallBuilder cb(native ? "aten::_native_batch_norm_legit_no_training" : "aten::batch_norm");
  cb.tensor(Buffer::random(rng, xs, -3, 3));
  if (affine) {
    cb.tensor(Buffer::random(rng, {c})).tensor(Buffer::random(rng, {c}));
  } else {
    cb.none().none();
  }
  cb.tensor(Buffer::random(rng, {c})).tensor(Buffer::random(rng, {c}, 0.1f, 2.f));
  if (!native) cb.b(false);
  cb.f(0.1).f(1e-5);
  if (!native) cb.b(true);
  return cb;
}

TEST(BatchNorm, ClosedForm) {
  // mean 1, var 3 (eps 1: std 2), weight 2, bias 5: y = (x - 1) / 2 * 2 + 5 = x + 4
  CallBuilder cb("aten::batch_norm");
  cb.tensor(Buffer::f32({1, 2, 2}, {0, 1, 2, 3}))
      .tensor(Buffer::f32({2}, {2, 2}))
      .tensor(Buffer::f32({2}, {5, 5}))
      .tensor(Buffer::f32({2}, {1, 1}))
      .tensor(Buffer::f32({2}, {3, 3}))
      .b(false)
      .f(0.1)
      .f(1.0)
      .b(false);
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i), i + 4.f);
  }
}

TEST(BatchNorm, NativeNoTrainingOutputs) {
  std::mt19937 rng(test_seed());
  RunResult r = run_kernel(bn_call(rng, {2, 3, 4, 4}, true, true), {KernelImpl::kReference, 3});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 3, 4, 4}));
  EXPECT_EQ(r.outputs[1].shape(), (std::vector<int64_t>{0}));  // as torch on CPU
  EXPECT_EQ(r.outputs[2].shape(), (std::vector<int64_t>{0}));
}

TEST(BatchNorm, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 24; ++c) {
    std::vector<int64_t> xs = {std::uniform_int_distribution<int64_t>(1, 3)(rng),
                               std::uniform_int_distribution<int64_t>(1, 17)(rng)};
    for (int d = 0; d < c % 3; ++d) xs.push_back(std::uniform_int_distribution<int64_t>(1, 9)(rng));
    const bool native = c % 2 == 0;
    SCOPED_TRACE("case " + std::to_string(c));
    expect_opt_matches_ref(bn_call(rng, xs, native, c % 4 < 2), 1e-5, 1e-5, native ? 3 : 1);
  }
}

TEST(BatchNorm, Rejects) {
  std::mt19937 rng(test_seed());
  CallBuilder train("aten::batch_norm");
  train.tensor(Buffer::f32({1, 2, 3}))
      .none()
      .none()
      .tensor(Buffer::f32({2}))
      .tensor(Buffer::f32({2}))
      .b(true)
      .f(0.1)
      .f(1e-5)
      .b(false);
  RunResult r = run_kernel(train);
  EXPECT_EQ(r.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status.message().find("training"), std::string::npos);
  CallBuilder bad("aten::batch_norm");
  bad.tensor(Buffer::f32({1, 2, 3}))
      .none()
      .none()
      .tensor(Buffer::f32({3}))
      .tensor(Buffer::f32({2}))
      .b(false)
      .f(0.1)
      .f(1e-5)
      .b(false);
  r = run_kernel(bad);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("running_mean"), std::string::npos) << r.status.message();
}

}  // namespace
}  // namespace tir::kernels::testing
