// Layer norm and (log-)softmax: closed forms from the definitions, native_layer_norm's
// statistics shapes, optimized vs reference on random shapes, rejected arguments.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

CallBuilder layer_norm_call(const Buffer& x, std::vector<int64_t> norm, const Buffer* w,
                            const Buffer* b, bool native, double eps = 1e-5) {
  CallBuilder cb(native ? "aten::native_layer_norm" : "aten::layer_norm");
  cb.tensor(x).ints(std::move(norm));
  w ? cb.tensor(*w) : cb.none();
  b ? cb.tensor(*b) : cb.none();
  cb.f(eps);
  if (!native) cb.b(true);
  return cb;
}

TEST(LayerNorm, ClosedFormAndStats) {
  std::mt19937 rng(test_seed());
  Buffer x = Buffer::random(rng, {2, 3, 4}, -2, 2);
  Buffer w = Buffer::random(rng, {3, 4}), b = Buffer::random(rng, {3, 4});
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(layer_norm_call(x, {3, 4}, &w, &b, true, 1e-3), {impl, 3});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 3, 4}));
    EXPECT_EQ(r.outputs[1].shape(), (std::vector<int64_t>{2, 1, 1}));
    EXPECT_EQ(r.outputs[2].shape(), (std::vector<int64_t>{2, 1, 1}));
    for (int n = 0; n < 2; ++n) {
      double mean = 0, var = 0;
      for (int i = 0; i < 12; ++i) mean += x.at<float>(n * 12 + i) / 12.0;
      for (int i = 0; i < 12; ++i) var += std::pow(x.at<float>(n * 12 + i) - mean, 2) / 12.0;
      const double rstd = 1 / std::sqrt(var + 1e-3);
      EXPECT_NEAR(r.outputs[1].at<float>(n), mean, 1e-6);
      EXPECT_NEAR(r.outputs[2].at<float>(n), rstd, 1e-5 * rstd);
      for (int i = 0; i < 12; ++i) {
        const double want =
            (x.at<float>(n * 12 + i) - mean) * rstd * w.at<float>(i) + b.at<float>(i);
        EXPECT_NEAR(r.outputs[0].at<float>(n * 12 + i), want, 1e-5);
      }
    }
  }
  RunResult last =
      run_kernel(layer_norm_call(x, {4}, nullptr, nullptr, true), {KernelImpl::kReference, 3});
  ASSERT_TRUE(last.status.ok()) << last.status.message();
  EXPECT_EQ(last.outputs[1].shape(), (std::vector<int64_t>{2, 3, 1}));
}

TEST(LayerNorm, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 24; ++c) {
    const int64_t rows = std::uniform_int_distribution<int64_t>(1, 40)(rng);
    const int64_t cols = std::uniform_int_distribution<int64_t>(1, 300)(rng);
    Buffer x = Buffer::random(rng, {rows, cols}, -3, 5);
    Buffer w = Buffer::random(rng, {cols}), b = Buffer::random(rng, {cols});
    const bool native = c % 2 == 0;
    SCOPED_TRACE("case " + std::to_string(c) + " [" + std::to_string(rows) + ", " +
                 std::to_string(cols) + "]");
    expect_opt_matches_ref(
        layer_norm_call(x, {cols}, c % 4 < 2 ? &w : nullptr, c % 3 ? &b : nullptr, native), 1e-4,
        1e-4, native ? 3 : 1);
  }
}

TEST(LayerNorm, Rejects) {
  Buffer x = Buffer::f32({2, 3});
  RunResult r = run_kernel(layer_norm_call(x, {2}, nullptr, nullptr, false));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("normalized_shape"), std::string::npos);
  EXPECT_NE(r.status.message().find("aten::layer_norm"), std::string::npos);
  Buffer w = Buffer::f32({4});
  r = run_kernel(layer_norm_call(x, {3}, &w, nullptr, false));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("weight"), std::string::npos);
}

CallBuilder softmax_call(const char* op, const Buffer& x, int64_t dim) {
  CallBuilder cb(op);
  cb.tensor(x).i(dim);
  if (std::string(op).find(".int") != std::string::npos) {
    cb.none();
  } else {
    cb.b(false);
  }
  return cb;
}

TEST(Softmax, ClosedForm) {
  std::mt19937 rng(test_seed());
  Buffer x = Buffer::random(rng, {2, 3, 4}, -5, 5);
  for (const char* op :
       {"aten::softmax.int", "aten::_softmax", "aten::log_softmax.int", "aten::_log_softmax"}) {
    const bool log = std::string(op).find("log") != std::string::npos;
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      RunResult r = run_kernel(softmax_call(op, x, 1), {impl});  // over the middle dim
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      for (int n = 0; n < 2; ++n) {
        for (int i = 0; i < 4; ++i) {
          double sum = 0;
          for (int k = 0; k < 3; ++k) sum += std::exp(x.at<float>((n * 3 + k) * 4 + i));
          for (int k = 0; k < 3; ++k) {
            const int at = (n * 3 + k) * 4 + i;
            const double want =
                log ? x.at<float>(at) - std::log(sum) : std::exp(x.at<float>(at)) / sum;
            EXPECT_NEAR(r.outputs[0].at<float>(at), want, 1e-6 + 1e-6 * std::abs(want)) << op;
          }
        }
      }
    }
  }
}

TEST(Softmax, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 32; ++c) {
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<int64_t> xs;
    for (int d = 0; d < rank; ++d) xs.push_back(std::uniform_int_distribution<int64_t>(1, 12)(rng));
    const int64_t dim = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
    const char* op = c % 2 ? "aten::_softmax" : "aten::log_softmax.int";
    SCOPED_TRACE(std::string(op) + " " + shape_str(xs) + " dim " + std::to_string(dim));
    expect_opt_matches_ref(softmax_call(op, Buffer::random(rng, xs, -20, 20), dim), 1e-5, 2e-6);
  }
}

TEST(Softmax, MaskedEntriesAreExactlyZero) {
  // -inf (a masked score) gets weight 0 exactly, as exp(-inf) in ATen, over the last dim and
  // over an inner dim; the rest still sums to 1.
  Buffer x = Buffer::f32({2, 4}, {0.5f, -INFINITY, 1.f, -INFINITY, -INFINITY, 2.f, -INFINITY, 0.f});
  for (int64_t dim : {1, 0}) {
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      RunResult r = run_kernel(softmax_call("aten::_softmax", x, dim), {impl});
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      for (int i = 0; i < 8; ++i)
        if (std::isinf(x.at<float>(i))) EXPECT_EQ(r.outputs[0].at<float>(i), 0.f) << i;
      if (dim == 1) {
        EXPECT_NEAR(r.outputs[0].at<float>(0) + r.outputs[0].at<float>(2), 1.0, 1e-6);
        EXPECT_NEAR(r.outputs[0].at<float>(0), 1.0 / (1.0 + std::exp(0.5)), 1e-6);
      }
    }
  }
}

TEST(Softmax, Rejects) {
  CallBuilder half("aten::_softmax");
  half.tensor(Buffer::f32({2, 3})).i(1).b(true);
  EXPECT_EQ(run_kernel(half).status.code(), StatusCode::kUnsupported);
  RunResult r = run_kernel(softmax_call("aten::softmax.int", Buffer::f32({2, 3}), 2));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("dim"), std::string::npos);
  CallBuilder f64("aten::softmax.int");
  f64.tensor(Buffer::f32({2})).i(0).dtype(DType::kFloat64);
  EXPECT_EQ(run_kernel(f64).status.code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tir::kernels::testing
