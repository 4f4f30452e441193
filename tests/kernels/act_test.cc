// Activations and elementwise math: every op against its std:: formula, int64 and
// promotion cases, optimized vs reference on random data, and rejected arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

struct UnaryCase {
  const char* op;
  std::function<double(double)> f;
  float lo, hi;
  const char* approximate = nullptr;  // gelu's str argument
};

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

std::vector<UnaryCase> unary_cases() {
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return {
      {"aten::gelu", [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, -6, 6,
       "none"},
      {"aten::gelu",
       [k](double x) { return 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x))); }, -6, 6,
       "tanh"},
      {"aten::tanh", [](double x) { return std::tanh(x); }, -5, 5},
      {"aten::sigmoid", sigmoid, -10, 10},
      {"aten::silu", [](double x) { return x * sigmoid(x); }, -10, 10},
      {"aten::hardswish", [](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; }, -5, 5},
      {"aten::hardswish_", [](double x) { return x * std::clamp(x + 3, 0.0, 6.0) / 6; }, -5, 5},
      {"aten::hardsigmoid", [](double x) { return std::clamp(x + 3, 0.0, 6.0) / 6; }, -5, 5},
      {"aten::hardsigmoid_", [](double x) { return std::clamp(x + 3, 0.0, 6.0) / 6; }, -5, 5},
      {"aten::relu6", [](double x) { return std::clamp(x, 0.0, 6.0); }, -3, 9},
      {"aten::neg", [](double x) { return -x; }, -5, 5},
      {"aten::exp", [](double x) { return std::exp(x); }, -10, 10},
      {"aten::log", [](double x) { return std::log(x); }, 0.01f, 100},
      {"aten::sqrt", [](double x) { return std::sqrt(x); }, 0, 100},
      {"aten::rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.01f, 100},
      {"aten::abs", [](double x) { return std::abs(x); }, -5, 5},
      {"aten::erf", [](double x) { return std::erf(x); }, -3, 3},
  };
}

CallBuilder unary_call(const UnaryCase& c, const Buffer& x) {
  CallBuilder cb(c.op);
  cb.tensor(x);
  if (c.approximate) cb.str(c.approximate);
  return cb;
}

TEST(Act, UnaryMatchesStdFormula) {
  std::mt19937 rng(test_seed());
  for (const UnaryCase& c : unary_cases()) {
    Buffer x = Buffer::random(rng, {257}, c.lo, c.hi);
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      RunResult r = run_kernel(unary_call(c, x), {impl});
      ASSERT_TRUE(r.status.ok()) << c.op << ": " << r.status.message();
      ASSERT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
      for (int64_t i = 0; i < 257; ++i) {
        const double want = c.f(x.at<float>(i));
        EXPECT_NEAR(r.outputs[0].at<float>(i), want, 4e-6 + 2e-6 * std::abs(want))
            << c.op << (c.approximate ? c.approximate : "") << " x=" << x.at<float>(i);
      }
    }
  }
}

TEST(Act, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (const UnaryCase& c : unary_cases()) {
    for (int n : {1, 7, 100, 40000}) {
      SCOPED_TRACE(std::string(c.op) + " n=" + std::to_string(n));
      expect_opt_matches_ref(unary_call(c, Buffer::random(rng, {n}, c.lo, c.hi)), 3e-6, 4e-6);
    }
  }
  for (double e : {2.0, 0.5, -1.0, -0.5, 1.0, 3.0, 1.7}) {
    CallBuilder cb("aten::pow.Tensor_Scalar");
    cb.tensor(Buffer::random(rng, {3, 1000}, 0.1f, 4.f)).f(e);
    SCOPED_TRACE("pow " + std::to_string(e));
    expect_opt_matches_ref(cb, 3e-6, 1e-6);
  }
}

TEST(Act, HardtanhBounds) {
  Buffer x = Buffer::f32({5}, {-3, -0.5f, 0, 0.5f, 3});
  for (const char* op : {"aten::hardtanh", "aten::hardtanh_"}) {
    CallBuilder cb(op);
    cb.tensor(x).f(-0.25).i(1);
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    for (int i = 0; i < 5; ++i) {
      EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i), std::clamp(x.at<float>(i), -0.25f, 1.f));
    }
  }
  CallBuilder ints("aten::hardtanh");
  ints.tensor(Buffer::i64({4}, {-5, 0, 2, 9})).i(-1).i(3);
  RunResult r = run_kernel(ints);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].at<int64_t>(0), -1);
  EXPECT_EQ(r.outputs[0].at<int64_t>(3), 3);
}

TEST(Act, ScalarOpsAndPromotion) {
  Buffer xf = Buffer::f32({3}, {1, 2, 4});
  Buffer xi = Buffer::i64({3}, {1, 2, 4});
  struct Case {
    const char* op;
    const Buffer* x;
    bool float_scalar;
    DType want_dtype;
    std::function<double(double)> f;
  };
  // rsub: 5 - 2x; sub: x - 2*5; div: x / 5; pow: x^3 (x^0.5 for the float exponent)
  const Case cases[] = {
      {"aten::rsub.Scalar", &xf, false, DType::kFloat32, [](double x) { return 5 - 2 * x; }},
      {"aten::rsub.Scalar", &xi, false, DType::kInt64, [](double x) { return 5 - 2 * x; }},
      {"aten::rsub.Scalar", &xi, true, DType::kFloat32, [](double x) { return 5 - 2 * x; }},
      {"aten::sub.Scalar", &xf, false, DType::kFloat32, [](double x) { return x - 10; }},
      {"aten::sub.Scalar", &xi, false, DType::kInt64, [](double x) { return x - 10; }},
      {"aten::div.Scalar", &xf, false, DType::kFloat32, [](double x) { return x / 5; }},
      {"aten::div.Scalar", &xi, false, DType::kFloat32, [](double x) { return x / 5; }},
      {"aten::pow.Tensor_Scalar", &xi, false, DType::kInt64, [](double x) { return x * x * x; }},
      {"aten::pow.Tensor_Scalar", &xi, true, DType::kFloat32,
       [](double x) { return std::sqrt(x); }},
  };
  for (const Case& c : cases) {
    CallBuilder cb(c.op);
    cb.tensor(*c.x);
    const std::string op = c.op;
    if (op.find("pow") != std::string::npos) {
      c.float_scalar ? cb.f(0.5) : cb.i(3);
    } else {
      c.float_scalar ? cb.f(5.0) : cb.i(5);
      if (op.find("sub") != std::string::npos) cb.i(2);
    }
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << c.op << ": " << r.status.message();
    ASSERT_EQ(r.outputs[0].tensor().dtype, c.want_dtype) << c.op;
    for (int i = 0; i < 3; ++i) {
      const double x =
          c.x->tensor().dtype == DType::kInt64 ? c.x->at<int64_t>(i) : c.x->at<float>(i);
      const double got =
          c.want_dtype == DType::kInt64 ? r.outputs[0].at<int64_t>(i) : r.outputs[0].at<float>(i);
      EXPECT_NEAR(got, c.f(x), 1e-6) << c.op << " x=" << x;
    }
  }
}

TEST(Act, PowTensorTensor) {
  // base [2, 1] ** exponent [3] broadcast to [2, 3]; also a Python-scalar exponent.
  Buffer base = Buffer::f32({2, 1}, {2, 3});
  Buffer expo = Buffer::f32({3}, {0, 1, 2.5f});
  CallBuilder cb("aten::pow.Tensor_Tensor");
  cb.tensor(base).tensor(expo);
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 3}));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i * 3 + j),
                      std::pow(base.at<float>(i), expo.at<float>(j)));
    }
  }
  CallBuilder ints("aten::pow.Tensor_Tensor");
  ints.tensor(Buffer::i64({3}, {2, 3, -2})).tensor(Buffer::i64({3}, {10, 3, 3}));
  r = run_kernel(ints);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].at<int64_t>(0), 1024);
  EXPECT_EQ(r.outputs[0].at<int64_t>(2), -8);
  CallBuilder mixed("aten::pow.Tensor_Tensor");  // int64 tensor ** 0-d float tensor
  mixed.tensor(Buffer::i64({2}, {4, 9})).tensor(Buffer::f32({}, {0.5f}));
  r = run_kernel(mixed);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(1), 3.f);
}

TEST(Act, Rejects) {
  CallBuilder gelu("aten::gelu");
  gelu.tensor(Buffer::f32({2})).str("erf");
  RunResult r = run_kernel(gelu);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("approximate"), std::string::npos);
  EXPECT_NE(r.status.message().find("aten::gelu"), std::string::npos);
  CallBuilder exp_i("aten::silu");  // no int64 kernel: the registry has none to offer
  exp_i.tensor(Buffer::i64({2}));
  EXPECT_FALSE(run_kernel(exp_i).status.ok());
  CallBuilder neg_pow("aten::pow.Tensor_Scalar");
  neg_pow.tensor(Buffer::i64({2})).i(-1);
  r = run_kernel(neg_pow);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("negative"), std::string::npos);
  CallBuilder bad_bcast("aten::pow.Tensor_Tensor");
  bad_bcast.tensor(Buffer::f32({2, 3})).tensor(Buffer::f32({4}));
  r = run_kernel(bad_bcast);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("broadcast"), std::string::npos);
}

}  // namespace
}  // namespace tir::kernels::testing
