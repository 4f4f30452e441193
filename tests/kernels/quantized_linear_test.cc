// tir::quantized_linear (kernels/shapes/quantization/quantized_linear.h), the int8 GEMM that
// runtime/passes/quant_rewrite.h makes of a PT2E-quantized linear: the oneDNN kernel and the
// reference against an emulation in double of what torch computes on the dequantized
// operands, sum_k (q_x - zp_x) s_x (q_w - zp_w[n]) s_w[n] + bias[n]. Both must agree to float
// rounding (1e-5 of the largest output); a wrong zero point, scale or layout is off by far more.
// Cases: uint8 and int8 inputs, float64 and float32 scales, zero and nonzero weight zero points
// (the oneDNN kernel then runs the reference loop), with and without bias, linear and addmm
// (flattened) output shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

struct QuantizedLinearCase {
  bool signed_input = false, f64_scales = true, weight_zp = false, bias = true, flatten = false;
  int64_t batch = 2, rows = 3, k = 17, n = 11;
};

void check_quantized_linear(const QuantizedLinearCase& c, std::mt19937& rng) {
  SCOPED_TRACE(::testing::Message()
               << "signed " << c.signed_input << " f64 " << c.f64_scales << " zp " << c.weight_zp
               << " bias " << c.bias << " flatten " << c.flatten << " k " << c.k << " n " << c.n);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Buffer x(c.signed_input ? DType::kInt8 : DType::kUInt8, {c.batch, c.rows, c.k});
  for (int64_t i = 0; i < x.tensor().numel(); ++i) {
    if (c.signed_input)
      x.span<int8_t>()[i] = int8_t(pick(-128, 127));
    else
      x.span<uint8_t>()[i] = uint8_t(pick(0, 255));
  }
  const double sx = 0.0213;
  const int64_t zx = c.signed_input ? -7 : 131;
  Buffer w(DType::kInt8, {c.n, c.k});
  for (int8_t& v : w.span<int8_t>()) v = int8_t(pick(-128, 127));
  Buffer s(c.f64_scales ? DType::kFloat64 : DType::kFloat32, {c.n});
  std::vector<double> sw(size_t(c.n));
  for (int64_t j = 0; j < c.n; ++j) {
    sw[j] = 1e-3 * pick(1, 40);
    if (c.f64_scales)
      s.span<double>()[j] = sw[j];
    else
      s.span<float>()[j] = float(sw[j]), sw[j] = double(float(sw[j]));
  }
  Buffer z = Buffer::i64({c.n});
  for (int64_t j = 0; j < c.n; ++j) z.span<int64_t>()[j] = c.weight_zp ? pick(-3, 3) : 0;
  const Buffer b = Buffer::random(rng, {c.n});

  const int64_t m = c.batch * c.rows;
  std::vector<double> want(size_t(m * c.n));
  double scale = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < c.k; ++p) {
        const int64_t q =
            c.signed_input ? x.span<int8_t>()[i * c.k + p] : x.span<uint8_t>()[i * c.k + p];
        acc += double(q - zx) * sx * double(w.span<int8_t>()[j * c.k + p] - z.span<int64_t>()[j]) *
               sw[j];
      }
      want[i * c.n + j] = acc + (c.bias ? b.span<float>()[j] : 0.0f);
      scale = std::max(scale, std::abs(want[i * c.n + j]));
    }

  for (const KernelImpl impl : {KernelImpl::kOptimized, KernelImpl::kReference}) {
    CallBuilder cb("tir::quantized_linear");
    cb.tensor(x).f(sx).i(zx).tensor(w).tensor(s).tensor(z);
    c.bias ? cb.tensor(b) : cb.none();
    cb.i(c.flatten ? 1 : 0);
    RunOptions o;
    o.impl = impl;
    o.data_at_prepare = true;  // the weight, scales and zero points are weights
    o.repeat_runs = 2;
    const RunResult r = run_kernel(cb, o);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    const Tensor& out = r.outputs[0].tensor();
    if (c.flatten) {
      ASSERT_EQ(out.rank, 2);
      EXPECT_EQ(out.sizes[0], m);
    } else {
      ASSERT_EQ(out.rank, 3);
      EXPECT_EQ(out.sizes[1], c.rows);
    }
    EXPECT_EQ(out.sizes[out.rank - 1], c.n);
    double worst = 0;
    for (size_t i = 0; i < want.size(); ++i)
      worst = std::max(worst, std::abs(double(out.data_as<const float>()[i]) - want[i]));
    EXPECT_LT(worst, 1e-5 * scale) << (impl == KernelImpl::kOptimized ? "oneDNN" : "reference");
  }
}

TEST(QuantizedLinear, MatchesTorchArithmetic) {
  std::mt19937 rng(test_seed());
  for (int i = 0; i < 16; ++i) {
    QuantizedLinearCase c;
    c.signed_input = i & 1;
    c.f64_scales = !(i & 2);
    c.weight_zp = i & 4;
    c.bias = !(i & 8);
    c.flatten = i % 3 == 0;
    c.k = std::uniform_int_distribution<int64_t>(1, 70)(rng);
    c.n = std::uniform_int_distribution<int64_t>(1, 50)(rng);
    check_quantized_linear(c, rng);
  }
}

TEST(QuantizedLinear, RefusesMismatchedShapes) {
  Buffer x(DType::kUInt8, {2, 8});
  Buffer w(DType::kInt8, {4, 6});
  Buffer s(DType::kFloat64, {4});
  for (const KernelImpl impl : {KernelImpl::kOptimized, KernelImpl::kReference}) {
    CallBuilder cb("tir::quantized_linear");
    cb.tensor(x).f(0.1).i(0).tensor(w).tensor(s).none().none().i(0);
    RunOptions o;
    o.impl = impl;
    o.data_at_prepare = true;
    const RunResult r = run_kernel(cb, o);
    ASSERT_FALSE(r.status.ok());
    EXPECT_NE(r.status.message().find("disagree"), std::string::npos) << r.status.message();
  }
}

}  // namespace
}  // namespace tir::kernels::testing
