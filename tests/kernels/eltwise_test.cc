// Elementwise ops: closed-form values, broadcasting index mapping, scalar operands,
// int64, and optimized vs reference on random broadcast shapes and channels-last operands.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

TEST(Eltwise, ReluClosedForm) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"aten::relu", "aten::relu_"}) {
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      CallBuilder cb(op);
      cb.tensor(Buffer::f32({5}, {-2, -0.f, 0, 3, nan}));
      RunResult r = run_kernel(cb, {impl});
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      EXPECT_FALSE(r.aliased(0));  // in-place ops are computed into their own output
      EXPECT_EQ(r.outputs[0].at<float>(0), 0.f);
      EXPECT_EQ(r.outputs[0].at<float>(3), 3.f);
      EXPECT_TRUE(std::isnan(r.outputs[0].at<float>(4)));
    }
  }
}

TEST(Eltwise, SinCosMatchStd) {
  std::mt19937 rng(test_seed());
  for (const char* op : {"aten::sin", "aten::cos"}) {
    for (int c = 0; c < 20; ++c) {
      const int64_t n = std::uniform_int_distribution<int64_t>(1, 300)(rng);
      Buffer x = Buffer::random(rng, {n}, -10, 10);
      CallBuilder cb(op);
      cb.tensor(x);
      for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
        RunResult r = run_kernel(cb, {impl});
        ASSERT_TRUE(r.status.ok()) << r.status.message();
        for (int64_t i = 0; i < n; ++i) {
          const float v = x.at<float>(i);
          const double want = op[6] == 's' ? std::sin(v) : std::cos(v);
          EXPECT_NEAR(r.outputs[0].at<float>(i), want, 2e-6) << op << " " << v;
        }
      }
    }
  }
}

TEST(Eltwise, BroadcastIndexMapping) {
  // a[i, 0] = i, b[j] = 10*j: out[i, j] = a - 2*b = i - 20*j for sub with alpha 2.
  CallBuilder cb("aten::sub.Tensor");
  cb.tensor(Buffer::f32({3, 1}, {0, 1, 2})).tensor(Buffer::f32({4}, {0, 10, 20, 30})).i(2);
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{3, 4}));
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i * 4 + j), i - 20.f * j);
    }
  }
}

TEST(Eltwise, ScalarOperands) {
  Buffer x = Buffer::f32({2, 2}, {1, 2, 3, 4});
  CallBuilder add("aten::add.Scalar");
  add.tensor(x).f(0.5).i(2);  // x + 2*0.5
  CallBuilder mul("aten::mul.Scalar");
  mul.tensor(x).f(-3);
  CallBuilder mul_t("aten::mul.Tensor");  // export may pass a Python scalar as 'other'
  mul_t.tensor(x).f(0.25);
  CallBuilder div0("aten::div.Tensor");  // 0-d float64 tensor constant
  Buffer two(DType::kFloat64, {});
  *two.span<double>().data() = 2.0;
  div0.tensor(x).tensor(two);
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult a = run_kernel(add, {impl}), m = run_kernel(mul, {impl});
    RunResult t = run_kernel(mul_t, {impl}), d = run_kernel(div0, {impl});
    ASSERT_TRUE(a.status.ok() && m.status.ok() && t.status.ok() && d.status.ok());
    for (int i = 0; i < 4; ++i) {
      EXPECT_FLOAT_EQ(a.outputs[0].at<float>(i), i + 2.f);
      EXPECT_FLOAT_EQ(m.outputs[0].at<float>(i), -3.f * (i + 1));
      EXPECT_FLOAT_EQ(t.outputs[0].at<float>(i), 0.25f * (i + 1));
      EXPECT_FLOAT_EQ(d.outputs[0].at<float>(i), 0.5f * (i + 1));
      EXPECT_EQ(d.outputs[0].tensor().dtype, DType::kFloat32);
    }
  }
}

TEST(Eltwise, Int64AddMul) {
  CallBuilder add("aten::add.Tensor");
  add.tensor(Buffer::i64({3}, {1, 2, 3})).tensor(Buffer::i64({1}, {10})).i(3);
  CallBuilder mul("aten::mul.Scalar");
  mul.tensor(Buffer::i64({3}, {1, 2, 3})).i(-2);
  {  // int64 has only the reference kernel (registry falls back to it)
    RunResult a = run_kernel(add), m = run_kernel(mul);
    ASSERT_TRUE(a.status.ok()) << a.status.message();
    ASSERT_TRUE(m.status.ok()) << m.status.message();
    EXPECT_EQ(a.outputs[0].tensor().dtype, DType::kInt64);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(a.outputs[0].at<int64_t>(i), i + 1 + 30);
      EXPECT_EQ(m.outputs[0].at<int64_t>(i), -2 * (i + 1));
    }
  }
}

// transformers' causal mask: `mask *= arange > cache_position` (mul_.Tensor in torch 2.8's
// training IR, mul.Tensor in the core IR) multiplies a float tensor by a bool one.
TEST(Eltwise, BoolMaskOtherPromotesToSelfDtype) {
  Buffer mask(DType::kBool, {3});
  const uint8_t bits[3] = {1, 0, 1};
  std::memcpy(mask.span<uint8_t>().data(), bits, 3);
  for (const char* op : {"aten::mul.Tensor", "aten::mul_.Tensor"}) {
    CallBuilder cb(op);
    cb.tensor(Buffer::f32({2, 3}, {1, 2, 3, -4, -5, -6})).tensor(mask);
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      RunResult r = run_kernel(cb, {impl});
      ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.message();
      EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
      const float want[6] = {1, 0, 3, -4, 0, -6};
      for (int i = 0; i < 6; ++i) EXPECT_EQ(r.outputs[0].at<float>(i), want[i]) << op << " " << i;
    }
  }
  CallBuilder add("aten::add.Tensor");  // int64 + 2*bool
  add.tensor(Buffer::i64({3}, {10, 20, 30})).tensor(mask).i(2);
  RunResult r = run_kernel(add);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].at<int64_t>(0), 12);
  EXPECT_EQ(r.outputs[0].at<int64_t>(1), 20);
  EXPECT_EQ(r.outputs[0].at<int64_t>(2), 32);
}

// torch <= 2.8's core IR keeps rsub(mask, 1.0) as sub.Tensor(1.0, mask): a number 'self'.
TEST(Eltwise, NumberSelfWithTensorOther) {
  CallBuilder sub("aten::sub.Tensor");
  sub.f(1.0).tensor(Buffer::f32({2, 2}, {0, 1, 0.5f, -2})).i(2);  // 1 - 2*x
  CallBuilder div("aten::div.Tensor");
  div.i(3).tensor(Buffer::f32({2}, {2, -4}));
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult s = run_kernel(sub, {impl}), d = run_kernel(div, {impl});
    ASSERT_TRUE(s.status.ok()) << s.status.message();
    ASSERT_TRUE(d.status.ok()) << d.status.message();
    ASSERT_EQ(s.outputs[0].shape(), (std::vector<int64_t>{2, 2}));
    const float want[4] = {1, -1, 0, 5};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(s.outputs[0].at<float>(i), want[i]);
    EXPECT_EQ(d.outputs[0].at<float>(0), 1.5f);
    EXPECT_EQ(d.outputs[0].at<float>(1), -0.75f);
  }
  CallBuilder isub("aten::sub.Tensor");
  isub.i(5).tensor(Buffer::i64({2}, {1, 7})).i(1);
  RunResult r = run_kernel(isub);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].at<int64_t>(0), 4);
  EXPECT_EQ(r.outputs[0].at<int64_t>(1), -2);
  CallBuilder promotes("aten::sub.Tensor");  // 0.5 - int64 would be float: not supported
  promotes.f(0.5).tensor(Buffer::i64({2}, {1, 7})).i(1);
  EXPECT_EQ(run_kernel(promotes).status.code(), StatusCode::kUnsupported);
}

TEST(Eltwise, BinaryOptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  const char* ops[] = {"aten::add.Tensor", "aten::add_.Tensor", "aten::sub.Tensor",
                       "aten::mul.Tensor", "aten::mul_.Tensor", "aten::div.Tensor"};
  for (const char* op : ops) {
    for (int c = 0; c < 24; ++c) {
      const int rank = std::uniform_int_distribution<int>(0, 4)(rng);
      std::vector<int64_t> out, a, b;
      for (int d = 0; d < rank; ++d)
        out.push_back(std::uniform_int_distribution<int64_t>(1, 7)(rng));
      a = out;
      b = out;
      // case kinds: same shape, b scalar-like, b row, random broadcast, b shorter rank
      for (int d = 0; d < rank; ++d) {
        if (c % 5 == 1) b[d] = 1;
        if (c % 5 == 2 && d < rank - 1) b[d] = 1;
        if (c % 5 == 3) {
          if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) a[d] = 1;
          if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) b[d] = 1;
        }
      }
      if (c % 5 == 4 && !b.empty()) b.erase(b.begin());
      CallBuilder cb(op);
      cb.tensor(Buffer::random(rng, a)).tensor(Buffer::random(rng, b, 0.5f, 2.f));
      const std::string name(op);
      if (name.find("add") != std::string::npos || name.find("sub") != std::string::npos) {
        cb.f(c % 2 ? 1.0 : -0.5);  // alpha
      }
      SCOPED_TRACE(std::string(op) + " " + shape_str(a) + " " + shape_str(b));
      expect_opt_matches_ref(cb, 1e-5, 1e-6);
    }
  }
}

// mul.Tensor with channels-last operands (runtime/passes/layout.h), the output plain or asked
// channels-last: equal to the reference on plain copies (a float product rounds the same in
// both), for the squeeze-excitation scale and every other form a channels-last operand meets.
TEST(Eltwise, MulChannelsLastMatchesReference) {
  std::mt19937 rng(test_seed());
  const auto check = [&](const CallBuilder& plain, const CallBuilder& cl, bool out_cl) {
    const RunResult want = run_kernel(plain);
    ASSERT_TRUE(want.status.ok()) << want.status.message();
    RunOptions o;
    o.impl = KernelImpl::kOptimized;
    o.channels_last = out_cl;
    o.repeat_runs = 2;
    const RunResult got = run_kernel(cl, o);
    ASSERT_TRUE(got.status.ok()) << got.status.message();
    EXPECT_TRUE(all_close(got.outputs[0], want.outputs[0], 0, 0));
    const Tensor& y = got.layouts[0];
    EXPECT_TRUE(out_cl && y.rank == 4 ? y.is_channels_last() : y.is_contiguous());
  };
  struct Case {
    std::vector<int64_t> a, b;
    bool a_cl, b_cl;
  };
  const Case cases[] = {
      {{1, 72, 1, 1}, {1, 72, 28, 28}, false, true},  // scale * x, as MobileNetV3 writes it
      {{2, 37, 1, 1}, {2, 37, 5, 7}, false, true},
      {{2, 37, 1, 1}, {2, 37, 5, 7}, true, true},   // the scale chosen channels-last too
      {{2, 37, 5, 7}, {2, 37, 1, 1}, true, false},  // x * scale
      {{37, 1, 1}, {2, 37, 5, 7}, false, true},
      {{1, 37, 1, 1}, {2, 37, 5, 7}, false, true},
      {{2, 19, 1, 1}, {2, 19, 1, 1}, true, true},  // H*W = 1
      {{2, 21, 4, 3}, {2, 21, 4, 3}, true, true},
      {{2, 21, 4, 3}, {2, 21, 4, 3}, true, false},
      {{2, 21, 4, 3}, {2, 21, 4, 3}, false, true},
      {{2, 21, 4, 3}, {2, 21, 4, 3}, false, false},  // only the output channels-last
      {{2, 21, 4, 3}, {3}, true, false},
      {{2, 21, 4, 3}, {4, 1}, true, false},
      {{1, 21, 4, 3}, {2, 21, 4, 3}, true, false},     // self broadcast over N
      {{2, 21, 4, 3}, {5, 2, 21, 4, 3}, true, false},  // a 5-D output stays plain
  };
  for (const Case& c : cases) {
    const Buffer a = Buffer::random(rng, c.a), b = Buffer::random(rng, c.b);
    CallBuilder plain("aten::mul.Tensor"), cl("aten::mul.Tensor");
    plain.tensor(a).tensor(b);
    cl.tensor(c.a_cl ? a.channels_last() : a).tensor(c.b_cl ? b.channels_last() : b);
    for (bool out_cl : {false, true}) {
      SCOPED_TRACE(shape_str(c.a) + (c.a_cl ? " cl * " : " * ") + shape_str(c.b) +
                   (c.b_cl ? " cl" : "") + (out_cl ? " -> cl" : " -> plain"));
      check(plain, cl, out_cl);
    }
  }
  // Numbers, 0-d tensors and bool masks beside a channels-last tensor.
  const Buffer x = Buffer::random(rng, {2, 21, 4, 3});
  Buffer two(DType::kFloat64, {});
  *two.span<double>().data() = 2.0;
  Buffer mask(DType::kBool, {3});
  const uint8_t bits[3] = {1, 0, 1};
  std::memcpy(mask.span<uint8_t>().data(), bits, 3);
  for (bool out_cl : {false, true}) {
    CallBuilder p1("aten::mul.Tensor"), c1("aten::mul.Tensor");
    p1.tensor(x).f(0.25);
    c1.tensor(x.channels_last()).f(0.25);
    CallBuilder p2("aten::mul.Tensor"), c2("aten::mul.Tensor");
    p2.tensor(x).tensor(two);
    c2.tensor(x.channels_last()).tensor(two);
    CallBuilder p3("aten::mul.Tensor"), c3("aten::mul.Tensor");
    p3.f(-1.5).tensor(x);
    c3.f(-1.5).tensor(x.channels_last());
    CallBuilder p4("aten::mul.Tensor"), c4("aten::mul.Tensor");
    p4.tensor(x).tensor(mask);
    c4.tensor(x.channels_last()).tensor(mask);
    for (auto [p, c] : {std::pair{&p1, &c1}, {&p2, &c2}, {&p3, &c3}, {&p4, &c4}}) {
      SCOPED_TRACE(std::to_string(&p1 == p   ? 1
                                  : &p2 == p ? 2
                                  : &p3 == p ? 3
                                             : 4) +
                   (out_cl ? " -> cl" : " -> plain"));
      check(*p, *c, out_cl);
    }
  }
}

// The reference reads plain operands only, and so does every binary kernel but mul.Tensor.
TEST(Eltwise, ChannelsLastOnlyWhereAccepted) {
  const Buffer x = Buffer::f32({1, 3, 2, 2}).channels_last();
  CallBuilder mul("aten::mul.Tensor");
  mul.tensor(x).tensor(x);
  EXPECT_EQ(run_kernel(mul).status.code(), StatusCode::kUnsupported);
  EXPECT_TRUE(run_kernel(mul, {KernelImpl::kOptimized}).status.ok());
  CallBuilder add("aten::add.Tensor");
  add.tensor(x).tensor(x).i(1);
  EXPECT_EQ(run_kernel(add, {KernelImpl::kOptimized}).status.code(), StatusCode::kUnsupported);
}

TEST(Eltwise, UnaryOptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (const char* op : {"aten::relu", "aten::relu_", "aten::sin", "aten::cos"}) {
    for (int c = 0; c < 20; ++c) {
      const int64_t n = std::uniform_int_distribution<int64_t>(1, 5000)(rng);
      CallBuilder cb(op);
      cb.tensor(Buffer::random(rng, {n}, -20, 20));
      expect_opt_matches_ref(cb, 1e-5, 2e-6);
    }
  }
}

TEST(Eltwise, Rejects) {
  CallBuilder bad("aten::add.Tensor");
  bad.tensor(Buffer::f32({2, 3})).tensor(Buffer::f32({4})).i(1);
  RunResult r = run_kernel(bad);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("aten::add.Tensor"), std::string::npos);
  EXPECT_NE(r.status.message().find("broadcast"), std::string::npos);
  CallBuilder mixed("aten::mul.Tensor");
  mixed.tensor(Buffer::f32({3})).tensor(Buffer::i64({3}));
  EXPECT_EQ(run_kernel(mixed).status.code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tir::kernels::testing
