// The int8 GEMM path (kernels/cpu/int8/gemm_int8.h) against an exact emulation of its arithmetic:
// the same quantization of A (a scale and zero point per row, uint8: 0..255, or 0..127 where the
// CPU's u8 x s8 pairs saturate, kernels/cpu/onednn/onednn_context.h) and of B (core/quantize.h),
// the int32 dot products summed exactly, then scales, bias and activation in double. oneDNN
// must agree to float rounding (1e-5 of the largest output), far below the quantization
// error itself (~1e-2 here),
// so a wrong zero point, scale axis or bias placement fails. Also: the result stays within
// the quantization bound of the float32 reference, and NaN in a row of A gives NaN in that
// row of the output (the other rows stay numbers, as in torch).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "core/quantize.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/int8/gemv_int8.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

struct Int8Case {
  std::string op;  // aten::linear, aten::addmm, aten::mm
  int64_t m, k, n;
  int bias = 0;  // 0 none, 1 [N], 2 [1]
  double alpha = 1.0;
  std::optional<ops::UnaryKind> act;
};

double activate(std::optional<ops::UnaryKind> a, double x) {
  switch (a.value_or(ops::UnaryKind::kTanh)) {  // kTanh: not tested here, no activation
    case ops::UnaryKind::kRelu:
      return std::max(0.0, x);
    case ops::UnaryKind::kGeluTanh:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    default:
      return x;
  }
}

/// What the int8 kernel must compute for A [m, k], B (linear: [n, k], else [k, n]), bias.
std::vector<double> emulate(const Int8Case& c, const Buffer& a, const Buffer& b,
                            const Buffer* bias) {
  const bool bt = c.op == "aten::linear";
  const float* av = a.tensor().data_as<const float>();
  std::vector<int32_t> qa(size_t(c.m * c.k));
  std::vector<float> row_scale(size_t(c.m));
  const float levels = int8_pairs_saturate() ? 127.0f : 255.0f;  // as the kernel quantizes
  for (int64_t i = 0; i < c.m; ++i) {
    const float* row = av + i * c.k;
    float lo = 0, hi = 0;
    for (int64_t p = 0; p < c.k; ++p) lo = std::min(lo, row[p]), hi = std::max(hi, row[p]);
    const float scale = hi > lo ? (hi - lo) / levels : 1.0f;
    const int32_t zp = std::clamp(int32_t(std::nearbyint(-lo / scale)), 0, int32_t(levels));
    const float inv = 1.0f / scale;
    for (int64_t p = 0; p < c.k; ++p)
      qa[size_t(i * c.k + p)] =
          int32_t(std::clamp(std::nearbyint(row[p] * inv) + float(zp), 0.0f, levels)) - zp;
    row_scale[size_t(i)] = scale;
  }
  const int64_t rows = bt ? c.n : c.k, cols = bt ? c.k : c.n;
  std::vector<int8_t> qb(size_t(rows * cols));
  std::vector<float> sb(size_t(c.n));
  quantize_int8_per_channel(b.tensor().data_as<const float>(), rows, cols, bt ? 0 : 1, qb.data(),
                            sb.data());
  std::vector<double> out(size_t(c.m * c.n));
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      int64_t acc = 0;
      for (int64_t p = 0; p < c.k; ++p)
        acc += int64_t(qa[size_t(i * c.k + p)]) * qb[size_t(bt ? j * c.k + p : p * c.n + j)];
      double y = double(acc) * double(row_scale[size_t(i)] * float(c.alpha) * sb[size_t(j)]);
      if (bias) y += bias->tensor().data_as<const float>()[c.bias == 1 ? j : 0];
      out[size_t(i * c.n + j)] = activate(c.act, y);
    }
  return out;
}

CallBuilder build(const Int8Case& c, const Buffer& a, const Buffer& b, const Buffer* bias) {
  CallBuilder cb(c.op);
  if (c.op == "aten::linear") {
    cb.tensor(a).tensor(b);
    bias ? cb.tensor(*bias) : cb.none();
  } else if (c.op == "aten::addmm") {
    cb.tensor(*bias).tensor(a).tensor(b).f(1.0).f(c.alpha);
  } else {
    cb.tensor(a).tensor(b);
  }
  return cb;
}

void check_int8(const Int8Case& c, std::mt19937& rng) {
  SCOPED_TRACE(c.op + " m " + std::to_string(c.m) + " k " + std::to_string(c.k) + " n " +
               std::to_string(c.n) + " bias " + std::to_string(c.bias) + " act " +
               (c.act ? std::to_string(int(*c.act)) : "none"));
  const Buffer a = Buffer::random(rng, {c.m, c.k}, -1.0f, 3.0f);  // skewed: zero point != 128
  const Buffer b =
      c.op == "aten::linear" ? Buffer::random(rng, {c.n, c.k}) : Buffer::random(rng, {c.k, c.n});
  Buffer bias_buf = Buffer::random(rng, {c.bias == 2 ? 1 : c.n});
  const Buffer* bias = c.bias ? &bias_buf : nullptr;
  RunOptions o;
  o.impl = KernelImpl::kOptimized;
  o.data_at_prepare = true;  // B is a weight: its bytes are known at prepare
  o.precision = Precision::kInt8;
  o.epilogue = c.act;
  o.repeat_runs = 2;
  const RunResult r = run_kernel(build(c, a, b, bias), o);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const std::vector<double> want = emulate(c, a, b, bias);
  const float* got = r.outputs[0].tensor().data_as<const float>();
  // Relative to the output's largest magnitude: float rounding and oneDNN's activation
  // approximations stay near 1e-7 of it; a wrong zero point, scale or bias is >= 1e-3.
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  EXPECT_LE(worst, 1e-5 * scale + 1e-6)
      << "int8 kernel differs from the emulation of its arithmetic";
  // Against float32: the quantization error of k products, each term off by at most
  // |a| s_b / 2 + |b| s_a / 2 + s_a s_b / 4 (s_a <= 4/255, or 4/127 with 7 bits; s_b <= 1/127).
  RunOptions f = o;
  f.precision = Precision::kFloat32;
  const RunResult ref = run_kernel(build(c, a, b, bias), f);
  ASSERT_TRUE(ref.status.ok()) << ref.status.message();
  const double levels = int8_pairs_saturate() ? 127 : 255;
  const double bound =
      double(c.k) * (3.0 / 254 + 2.0 / levels + 1.0 / (127 * levels)) * std::max(1.0, c.alpha);
  const float* fv = ref.outputs[0].tensor().data_as<const float>();
  for (size_t i = 0; i < want.size(); ++i) ASSERT_LE(std::abs(got[i] - fv[i]), bound) << i;
}

TEST(GemmInt8, MatchesEmulationOfItsArithmetic) {
  std::mt19937 rng(test_seed());
  const std::optional<ops::UnaryKind> acts[] = {std::nullopt, ops::UnaryKind::kRelu,
                                                ops::UnaryKind::kGeluTanh};
  for (int i = 0; i < 18; ++i) {
    const auto pick = [&](int64_t lo, int64_t hi) {
      return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    Int8Case c;
    c.op = i % 3 == 0 ? "aten::linear" : i % 3 == 1 ? "aten::addmm" : "aten::mm";
    c.m = pick(1, 40), c.k = pick(1, 90), c.n = pick(1, 70);
    c.bias = c.op == "aten::mm" ? 0 : c.op == "aten::addmm" ? 1 + i % 2 : i % 3;
    c.alpha = c.op == "aten::addmm" && i % 2 ? 0.5 : 1.0;
    c.act = acts[(i / 3) % 3];
    check_int8(c, rng);
  }
}

// One row of A (an LLM's decode step): with linear's [N, K] weight the kernel's own int8 dot
// products run instead of the oneDNN primitive; addmm's and mm's [K, N] keep the primitive.
// The same emulation holds either way, for K and N that are and are not multiples of the
// vector widths.
TEST(GemmInt8, OneRowMatchesTheEmulation) {
  std::mt19937 rng(test_seed());
  const std::optional<ops::UnaryKind> acts[] = {std::nullopt, ops::UnaryKind::kRelu,
                                                ops::UnaryKind::kGeluTanh};
  int i = 0;
  for (const char* op : {"aten::linear", "aten::addmm", "aten::mm"})
    for (int64_t k : {1, 15, 16, 17, 300, 2048})
      for (int64_t n : {1, 7, 64, 300}) {
        Int8Case c;
        c.op = op;
        c.m = 1, c.k = k, c.n = n;
        c.bias = c.op == std::string("aten::mm") ? 0 : 1 + i % 2;
        c.act = acts[i++ % 3];
        check_int8(c, rng);
      }
}

// Without AVX512-VNNI oneDNN's u8 x s8 pairs saturate in int16: the int8 kernels must know it
// (a CPU, or ONEDNN_MAX_CPU_ISA, below VNNI gave silently wrong int8 results before).
TEST(GemmInt8, KnowsWhereU8S8PairsSaturate) {
  if (!__builtin_cpu_supports("avx512vnni")) EXPECT_TRUE(int8_pairs_saturate());
  const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const unsigned vnni = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
  EXPECT_EQ(int8_pairs_saturate(), (isa & vnni) != vnni) << "effective ISA " << isa;
}

// The decode GEMV (kernels/cpu/int8/gemv_int8.h) in every variant this CPU runs gives the
// exact integers (so the same floats): A in 0..255 and in 0..127 (where the baseline uses
// maddubs), K with and without a tail of the 64-byte (VNNI) and 16-byte (AVX2) steps, N with
// and without a remainder of the 4-row passes.
TEST(GemmInt8, GemvEveryIsaVariantGivesTheExactIntegers) {
  std::mt19937 rng(test_seed());
  for (int v = 0; v < cpu_isa_count(); ++v)
    for (const bool a7 : {false, true})
      for (const int64_t k : {1, 17, 64, 100, 129, 1000, 4096 + 33})
        for (const int64_t n : {1, 3, 4, 9}) {
          const CpuIsa isa = static_cast<CpuIsa>(v);
          SCOPED_TRACE(std::string(cpu_isa_name(isa)) + (a7 ? " a7" : "") + " k " +
                       std::to_string(k) + " n " + std::to_string(n));
          std::uniform_int_distribution<int> ua(0, a7 ? 127 : 255), ub(-128, 127);
          std::uniform_real_distribution<float> us(0.001f, 0.1f);
          std::vector<uint8_t> a(static_cast<size_t>(k));
          std::vector<int8_t> b(size_t(n * k));
          std::vector<float> scales(static_cast<size_t>(n)), out(static_cast<size_t>(n), -1.0f);
          for (uint8_t& x : a) x = uint8_t(ua(rng));
          for (int8_t& x : b) x = int8_t(ub(rng));
          for (float& x : scales) x = us(rng);
          int8_gemv(a.data(), b.data(), k, 0, n, scales.data(), a7, isa, out.data());
          for (int64_t j = 0; j < n; ++j) {
            int64_t sum = 0;
            for (int64_t i = 0; i < k; ++i) sum += int64_t(a[size_t(i)]) * b[size_t(j * k + i)];
            EXPECT_EQ(out[size_t(j)], float(int32_t(sum)) * scales[size_t(j)]) << "column " << j;
          }
        }
}

// TIR_MAX_CPU_ISA caps the variant (the `kernels_baseline_isa` test runs this suite with
// TIR_MAX_CPU_ISA=avx2); without it the best variant the CPU has runs.
TEST(CpuIsa, FollowsTheCpuAndTheCap) {
  const char* cap = std::getenv("TIR_MAX_CPU_ISA");
  if (cap && std::string(cap) == "avx2") {
    EXPECT_EQ(cpu_isa(), CpuIsa::kBaseline);
  } else if (!cap) {
    EXPECT_EQ(cpu_isa(), detected_cpu_isa());
  }
  EXPECT_EQ(detected_cpu_isa() == CpuIsa::kAvx512Vnni,
            __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw") &&
                __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
      << cpu_features_line();
}

TEST(GemmInt8, NanInARowGivesNanInThatRow) {
  std::mt19937 rng(test_seed());
  Buffer a = Buffer::random(rng, {3, 16});
  a.span<float>()[16 + 5] = std::nanf("");  // row 1
  const Buffer b = Buffer::random(rng, {8, 16});
  CallBuilder cb("aten::linear");
  cb.tensor(a).tensor(b).none();
  RunOptions o;
  o.impl = KernelImpl::kOptimized;
  o.data_at_prepare = true;
  o.precision = Precision::kInt8;
  const RunResult r = run_kernel(cb, o);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const std::span<const float> out = r.outputs[0].span<float>();
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(std::isnan(out[i]), i / 8 == 1) << "output " << i << " = " << out[i];
}

TEST(Quantize, PerChannelRoundTripAndAxes) {
  std::mt19937 rng(test_seed());
  const Buffer w = Buffer::random(rng, {13, 37}, -2.0f, 1.0f);
  const float* wv = w.tensor().data_as<const float>();
  std::vector<int8_t> q0(13 * 37), q1(37 * 13);
  std::vector<float> s0(13), s1(13), back(13 * 37);
  quantize_int8_per_channel(wv, 13, 37, 0, q0.data(), s0.data());
  dequantize_int8_per_channel(q0.data(), s0.data(), 13, 37, 0, back.data());
  for (int r = 0; r < 13; ++r) {
    int max_q = 0;
    for (int c = 0; c < 37; ++c) {
      EXPECT_LE(std::abs(back[r * 37 + c] - wv[r * 37 + c]), s0[r] / 2 * 1.0001f);
      max_q = std::max(max_q, std::abs(int(q0[r * 37 + c])));
    }
    EXPECT_EQ(max_q, 127) << "each channel's largest magnitude maps to 127";
  }
  // Axis 1 over the transpose is the same quantization.
  std::vector<float> wt(37 * 13);
  for (int r = 0; r < 13; ++r)
    for (int c = 0; c < 37; ++c) wt[c * 13 + r] = wv[r * 37 + c];
  quantize_int8_per_channel(wt.data(), 37, 13, 1, q1.data(), s1.data());
  EXPECT_EQ(s0, s1);
  for (int r = 0; r < 13; ++r)
    for (int c = 0; c < 37; ++c) ASSERT_EQ(q0[r * 37 + c], q1[c * 13 + r]);
}

}  // namespace
}  // namespace tir::kernels::testing
