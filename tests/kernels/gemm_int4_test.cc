// Group-wise int4 weights (core/quantize_int4.h) and the int4 GEMM (kernels/cpu/int4/gemm_int4.h):
//  - quantization round trip within half a step per group (a full step for the one value a
//    symmetric group clamps), the documented nibble layout, constant and all-zero groups;
//  - aten::linear on an int4-stored weight (bound without its float32 bytes, as the runtime
//    binds it) against an exact emulation of its arithmetic (activations quantized per 32 as
//    Q8_0, integer dot products, scales in double) to float rounding, and against the reference
//    oracle (kernels/reference/quantization/int4_gemm.h, float32 A times the dequantized weight)
//    within the activation quantization bound; every ISA variant the CPU runs (AVX2,
//    AVX512-VNNI) equals the plain loops;
//  - NaN in a row of A gives NaN in that row only; a weight whose int4 storage does not fit the
//    GEMM asks for its float32 bytes instead of running wrong.
#include "kernels/cpu/int4/gemm_int4.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/quantize_int4.h"
#include "kernels/reference/quantization/int4_gemm.h"
#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

struct Packed {
  std::vector<uint8_t> bytes;
  QuantizedWeight q;
  Int4View view() const {
    return {reinterpret_cast<const uint8_t*>(q.data), q.scales, q.offsets, q.rows, q.cols, q.group};
  }
};

Packed pack(const float* w, int64_t n, int64_t k, int64_t group, bool asym) {
  Packed p;
  p.bytes.resize(int4_stored_bytes(n, k, group, asym));
  quantize_int4_groups(w, n, k, group, asym, p.bytes.data());
  const Int4View v = int4_view(p.bytes.data(), n, k, group, asym);
  p.q.data = reinterpret_cast<const int8_t*>(v.codes);
  p.q.scales = v.scales;
  p.q.offsets = v.offsets;
  p.q.rows = n, p.q.cols = k, p.q.axis = 0, p.q.group = group;
  return p;
}

TEST(QuantizeInt4, RoundTripWithinHalfAStepPerGroup) {
  std::mt19937 rng(test_seed());
  for (const int64_t group : {32, 128})
    for (const bool asym : {false, true}) {
      SCOPED_TRACE("group " + std::to_string(group) + (asym ? " asymmetric" : " symmetric"));
      const int64_t n = 5, k = 256;
      const Buffer w = Buffer::random(rng, {n, k}, -2.0f, 3.0f);
      const float* wv = w.tensor().data_as<const float>();
      const Packed p = pack(wv, n, k, group, asym);
      std::vector<float> back(size_t(n * k));
      dequantize_int4_rows(p.view(), 0, n, back.data());
      for (int64_t r = 0; r < n; ++r)
        for (int64_t i = 0; i < k; ++i) {
          const int64_t g = r * (k / group) + i / group;
          const double s = std::fabs(p.q.scales[g]);
          const double x = wv[r * k + i], err = std::fabs(x - back[size_t(r * k + i)]);
          // Symmetric: the extreme value is code 0 (-8 s); its negation would be +8 s, one
          // past code 15, so it alone may be a full step off.
          const bool clamped = !asym && std::fabs(x / p.q.scales[g]) > 7.5;
          ASSERT_LE(err, (clamped ? 1.0 : 0.5) * s * (1 + 1e-5) + 1e-7) << r << "," << i;
        }
    }
}

TEST(QuantizeInt4, NibbleLayoutAndDegenerateGroups) {
  // w = (i % 16) - 8: the extreme is -8, so s = 1 and q[i] = i % 16; byte j holds q[j] low and
  // q[j + 16] high.
  std::vector<float> w(64);
  for (int i = 0; i < 32; ++i) w[size_t(i)] = float(i % 16) - 8.0f;
  for (int i = 32; i < 64; ++i) w[size_t(i)] = 0.0f;  // second group: all zero
  std::vector<uint8_t> bytes(int4_stored_bytes(1, 64, 32, false));
  quantize_int4_groups(w.data(), 1, 64, 32, false, bytes.data());
  for (int j = 0; j < 16; ++j) EXPECT_EQ(bytes[size_t(j)], uint8_t(j | (j << 4))) << j;
  const Int4View v = int4_view(bytes.data(), 1, 64, 32, false);
  EXPECT_EQ(v.scales[0], 1.0f);
  EXPECT_EQ(v.scales[1], 1.0f);                                          // an all-zero group: s = 1
  for (int j = 16; j < 32; ++j) EXPECT_EQ(bytes[size_t(j)], 0x88) << j;  // zero is code 8
  std::vector<float> back(64);
  dequantize_int4_rows(v, 0, 1, back.data());
  EXPECT_EQ(back, w);
  // Asymmetric, a constant group: s = 0 and every value comes back exactly as the offset.
  std::vector<float> c(32, 0.75f);
  std::vector<uint8_t> cb(int4_stored_bytes(1, 32, 32, true));
  quantize_int4_groups(c.data(), 1, 32, 32, true, cb.data());
  std::vector<float> cback(32);
  dequantize_int4_rows(int4_view(cb.data(), 1, 32, 32, true), 0, 1, cback.data());
  EXPECT_EQ(cback, c);
}

/// What the int4 kernel must compute: A quantized per 32 (d = max|a| / 127, codes
/// round(a / d)), w = q * s + m, sums in double.
std::vector<double> emulate(const Packed& p, const float* a, int64_t m) {
  const int64_t n = p.q.rows, k = p.q.cols, groups = k / p.q.group;
  std::vector<double> out(size_t(m * n), 0.0);
  uint8_t q[kInt4Block];
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t b = 0; b < k / kInt4Block; ++b) {
        const float* x = a + i * k + b * kInt4Block;
        float amax = 0;
        for (int t = 0; t < kInt4Block; ++t) amax = std::max(amax, std::fabs(x[t]));
        const float d = amax / 127.0f, inv = amax > 0 ? 127.0f / amax : 0.0f;
        const int64_t g = j * groups + b * kInt4Block / p.q.group;
        const double s = p.q.scales[g], off = p.q.offsets ? p.q.offsets[g] : -8.0 * s;
        int4_unpack_block(reinterpret_cast<const uint8_t*>(p.q.data) + (j * k + b * kInt4Block) / 2,
                          q);
        for (int t = 0; t < kInt4Block; ++t)
          sum += (q[t] * s + off) * double(std::nearbyint(x[t] * inv)) * d;
      }
      out[size_t(i * n + j)] = sum;
    }
  return out;
}

struct Int4Case {
  int64_t m, k, n, group;
  bool asym;
  bool bias;
  std::optional<ops::UnaryKind> act;
};

RunResult run_linear(const Int4Case& c, const Buffer& a, const Buffer& w, const Buffer& bias,
                     const QuantizedWeight& q) {
  CallBuilder cb("aten::linear");
  cb.tensor(a).tensor(w);
  c.bias ? cb.tensor(bias) : cb.none();
  RunOptions o;
  o.impl = KernelImpl::kOptimized;
  o.data_at_prepare = false;  // the weight is bound without float32 bytes, as the runtime does
  o.input_quantized = {nullptr, &q, nullptr};
  o.epilogue = c.act;
  o.repeat_runs = 2;
  return run_kernel(cb, o);
}

void check_int4(const Int4Case& c, std::mt19937& rng) {
  SCOPED_TRACE("m " + std::to_string(c.m) + " k " + std::to_string(c.k) + " n " +
               std::to_string(c.n) + " group " + std::to_string(c.group) +
               (c.asym ? " asym" : " sym") + (c.bias ? " bias" : "") + (c.act ? " relu" : ""));
  const Buffer a = Buffer::random(rng, {c.m, c.k}, -1.0f, 3.0f);
  const Buffer w = Buffer::random(rng, {c.n, c.k});
  const Buffer bias = Buffer::random(rng, {c.n});
  const Packed p = pack(w.tensor().data_as<const float>(), c.n, c.k, c.group, c.asym);
  const RunResult r = run_linear(c, a, w, bias, p.q);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const float* got = r.outputs[0].tensor().data_as<const float>();
  const float* av = a.tensor().data_as<const float>();
  const float* bv = bias.tensor().data_as<const float>();
  std::vector<double> want = emulate(p, av, c.m);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double& y = want[size_t(i * c.n + j)];
      if (c.bias) y += bv[j];
      if (c.act) y = std::max(0.0, y);
    }
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, std::abs(got[i] - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  EXPECT_LE(worst, 1e-4 * scale + 1e-5) << "int4 kernel differs from the emulation";
  // Against the oracle (float32 A times the dequantized weight): A's per-32 rounding moves
  // each product by at most |w| d / 2.
  std::vector<float> ref(size_t(c.m * c.n));
  ref_int4_linear(p.view(), av, c.m, ref.data());
  std::vector<float> wdq(size_t(c.n * c.k));
  dequantize_int4_rows(p.view(), 0, c.n, wdq.data());
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      double bound = 1e-4;
      for (int64_t b = 0; b < c.k / kInt4Block; ++b) {
        float amax = 0;
        for (int t = 0; t < kInt4Block; ++t)
          amax = std::max(amax, std::fabs(av[i * c.k + b * kInt4Block + t]));
        for (int t = 0; t < kInt4Block; ++t)
          bound += std::fabs(wdq[size_t(j * c.k + b * kInt4Block + t)]) * amax / 127.0 / 2;
      }
      double y = ref[size_t(i * c.n + j)] + (c.bias ? bv[j] : 0.0);
      if (c.act) y = std::max(0.0, y);
      ASSERT_LE(std::abs(got[i * c.n + j] - y), bound * 1.01) << i << "," << j;
    }
}

TEST(GemmInt4, MatchesEmulationAndReference) {
  std::mt19937 rng(test_seed());
  int i = 0;
  for (const int64_t m : {1, 3, 4, 9})
    for (const int64_t k : {128, 384})
      for (const int64_t group : {32, 128}) {
        Int4Case c{m, k, 1 + 37 * (i % 3), group, i % 2 == 1, i % 3 != 0, std::nullopt};
        if (i % 4 == 2) c.act = ops::UnaryKind::kRelu;
        check_int4(c, rng);
        ++i;
      }
}

// Every variant this CPU runs (kernels/cpu/cpu_isa.h: AVX2, and AVX512-VNNI where present)
// computes the plain loops' integers; only the float sums' order differs. Shapes cover 4-row
// and single-row passes, group 128 and group 32 with an odd number of blocks (VNNI's 256-bit
// tail).
TEST(GemmInt4, EveryIsaVariantEqualsThePlainLoops) {
  std::mt19937 rng(test_seed());
  struct Shape {
    int64_t m, k, n, group;
  };
  for (int v = 0; v < cpu_isa_count(); ++v) {
    const CpuIsa isa = static_cast<CpuIsa>(v);
    for (const Shape& sh :
         {Shape{6, 256, 19, 128}, Shape{5, 96, 7, 32}, Shape{1, 32, 3, 32}, Shape{4, 1024, 5, 32}})
      for (const bool asym : {false, true}) {
        SCOPED_TRACE(std::string(cpu_isa_name(isa)) + " m " + std::to_string(sh.m) + " k " +
                     std::to_string(sh.k) + " group " + std::to_string(sh.group) +
                     (asym ? " asymmetric" : ""));
        const int64_t m = sh.m, k = sh.k, n = sh.n, group = sh.group;
        const Buffer a = Buffer::random(rng, {m, k});
        const Buffer w = Buffer::random(rng, {n, k});
        const Packed p = pack(w.tensor().data_as<const float>(), n, k, group, asym);
        std::vector<int8_t> qa(size_t(m * k));
        std::vector<float> da(size_t(m * k / 32)), ga(size_t(m * k / group));
        for (int64_t i = 0; i < m; ++i)
          ASSERT_TRUE(int4_quantize_row_q8(a.tensor().data_as<const float>() + i * k, k, group,
                                           qa.data() + i * k, da.data() + i * k / 32,
                                           ga.data() + i * k / group));
        std::vector<float> fast(size_t(m * n)), plain(size_t(m * n));
        int4_gemm_q8(p.view(), qa.data(), da.data(), ga.data(), m, 0, n, 0.5f, fast.data(), isa);
        int4_gemm_q8_plain(p.view(), qa.data(), da.data(), ga.data(), m, 0, n, 0.5f, plain.data());
        for (size_t i = 0; i < fast.size(); ++i)
          EXPECT_NEAR(fast[i], plain[i], 1e-5 * (1 + std::fabs(plain[i]))) << i;
      }
  }
}

TEST(GemmInt4, NanInARowGivesNanInThatRow) {
  std::mt19937 rng(test_seed());
  Buffer a = Buffer::random(rng, {3, 64});
  a.span<float>()[64 + 7] = std::nanf("");  // row 1
  const Buffer w = Buffer::random(rng, {8, 64});
  const Packed p = pack(w.tensor().data_as<const float>(), 8, 64, 32, false);
  const RunResult r = run_linear({3, 64, 8, 32, false, false, std::nullopt}, a, w, w, p.q);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const std::span<const float> out = r.outputs[0].span<float>();
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_EQ(std::isnan(out[i]), i / 8 == 1) << "output " << i << " = " << out[i];
}

TEST(GemmInt4, StorageThatDoesNotFitAsksForFloatBytes) {
  // An int4 storage whose shape is not the GEMM's B (here: its columns count differs) is not
  // read: the kernel asks the runtime for the float32 weight rather than compute wrong.
  std::mt19937 rng(test_seed());
  const Buffer a = Buffer::random(rng, {2, 64});
  const Buffer w = Buffer::random(rng, {4, 64});
  Packed p = pack(w.tensor().data_as<const float>(), 4, 64, 32, false);
  p.q.cols = 32;
  const RunResult r = run_linear({2, 64, 4, 32, false, false, std::nullopt}, a, w, w, p.q);
  EXPECT_NE(r.info.needs_float_inputs & 2u, 0u);
}

}  // namespace
}  // namespace tir::kernels::testing
