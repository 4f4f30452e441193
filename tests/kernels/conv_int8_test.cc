// The int8 convolution path (kernels/cpu/int8/conv_int8_onednn.h) against an exact emulation of its
// arithmetic: the input quantized per tensor (uint8 x * 255 / max x when none is negative,
// else int8 x * 127 / max |x|; where the CPU's u8 x s8 pairs saturate, kernels/cpu/
// onednn_context.h, uint8 0..127 with a zero point, (max - min) / 127), the weight per output
// channel (core/quantize.h), the int32 products summed exactly, then scales, bias and relu in
// double. oneDNN must agree to float rounding (1e-5 of the largest output), far below the
// quantization error (~1e-2 here), so a wrong scale, axis, group or bias placement fails. Also:
// within the quantization bound of the float32 kernel, and NaN in the input gives a NaN output
// (relu keeps it); depthwise, grouped and short (K < 64) convolutions compute in float32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/quantize.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

struct Int8ConvGeometry {
  int64_t n, c, h, w, oc, k, stride, pad, groups;
  bool bias;
};

int64_t out_size(int64_t in, const Int8ConvGeometry& g) {
  return (in + 2 * g.pad - g.k) / g.stride + 1;
}

CallBuilder conv_call(const Int8ConvGeometry& g, const Buffer& x, const Buffer& w,
                      const Buffer& b) {
  CallBuilder cb("aten::conv2d");
  cb.tensor(x).tensor(w);
  g.bias ? cb.tensor(b) : cb.none();
  cb.ints({g.stride, g.stride}).ints({g.pad, g.pad}).ints({1, 1}).i(g.groups);
  return cb;
}

/// What the int8 kernel must compute, NCHW, in double.
std::vector<double> emulate(const Int8ConvGeometry& g, const Buffer& x, const Buffer& w,
                            const Buffer& b, bool relu) {
  const float* xv = x.tensor().data_as<const float>();
  const int64_t xn = x.tensor().numel();
  float amax = 0, lo = 0, hi = 0;
  for (int64_t i = 0; i < xn; ++i) {
    amax = std::max(amax, std::fabs(xv[i]));
    lo = std::min(lo, xv[i]), hi = std::max(hi, xv[i]);
  }
  std::vector<int32_t> qx(static_cast<size_t>(xn));
  float sx;
  if (int8_pairs_saturate()) {  // 7-bit uint8, zero point added before rounding (oneDNN)
    sx = hi > lo ? (hi - lo) / 127.0f : 1.0f;
    const float inv = 1.0f / sx;
    const int32_t zp = std::clamp(int32_t(std::nearbyint(-lo / sx)), 0, 127);
    for (int64_t i = 0; i < xn; ++i)
      qx[size_t(i)] =
          int32_t(std::clamp(std::nearbyint(xv[i] * inv + float(zp)), 0.0f, 255.0f)) - zp;
  } else {
    const float levels = lo >= 0 ? 255.0f : 127.0f;  // uint8 when no value is negative
    sx = amax > 0 ? amax / levels : 1.0f;
    const float inv = 1.0f / sx;
    for (int64_t i = 0; i < xn; ++i)
      qx[size_t(i)] = int32_t(std::clamp(std::nearbyint(xv[i] * inv), -128.0f, levels));
  }
  const int64_t cg = g.c / g.groups, ocg = g.oc / g.groups, per_oc = cg * g.k * g.k;
  std::vector<int8_t> qw(size_t(g.oc * per_oc));
  std::vector<float> sw(size_t(g.oc));
  quantize_int8_per_channel(w.tensor().data_as<const float>(), g.oc, per_oc, 0, qw.data(),
                            sw.data());
  const int64_t oh = out_size(g.h, g), ow = out_size(g.w, g);
  std::vector<double> out(size_t(g.n * g.oc * oh * ow));
  for (int64_t n = 0; n < g.n; ++n)
    for (int64_t o = 0; o < g.oc; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          int64_t acc = 0;
          for (int64_t ic = 0; ic < cg; ++ic)
            for (int64_t u = 0; u < g.k; ++u)
              for (int64_t v = 0; v < g.k; ++v) {
                const int64_t y = i * g.stride - g.pad + u, z = j * g.stride - g.pad + v;
                if (y < 0 || y >= g.h || z < 0 || z >= g.w) continue;
                const int64_t c = (o / ocg) * cg + ic;
                acc += int64_t(qx[size_t(((n * g.c + c) * g.h + y) * g.w + z)]) *
                       qw[size_t(((o * cg + ic) * g.k + u) * g.k + v)];
              }
          double r = double(acc) * double(sw[size_t(o)]) * double(sx);
          if (g.bias) r += b.tensor().data_as<const float>()[o];
          out[size_t(((n * g.oc + o) * oh + i) * ow + j)] = relu ? std::max(0.0, r) : r;
        }
  return out;
}

TEST(ConvInt8, MatchesEmulationOfItsArithmetic) {
  std::mt19937 rng(test_seed());
  const auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int t = 0; t < 12; ++t) {
    Int8ConvGeometry g;  // dense, dot products of at least 64 (shorter ones compute in float32)
    g.groups = 1;
    g.k = t % 3 == 0 ? 1 : 3, g.stride = pick(1, 2), g.pad = g.k / 2;
    g.n = pick(1, 2), g.c = g.k == 1 ? pick(64, 90) : pick(8, 12), g.oc = pick(1, 40);
    g.h = pick(g.k, 14), g.w = pick(g.k, 14), g.bias = t % 2 == 0;
    const bool relu = t % 3 != 1;
    SCOPED_TRACE("case " + std::to_string(t));
    // Every other case has no negative input (a relu's output): the uint8 path.
    const Buffer x = Buffer::random(rng, {g.n, g.c, g.h, g.w}, t % 2 ? 0.0f : -1.0f, 3.0f);
    const Buffer w = Buffer::random(rng, {g.oc, g.c / g.groups, g.k, g.k});
    const Buffer b = Buffer::random(rng, {g.oc});
    RunOptions o;
    o.impl = KernelImpl::kOptimized;
    o.data_at_prepare = true;  // the weight's bytes are known at prepare
    o.precision = Precision::kInt8;
    if (relu) o.epilogue = ops::UnaryKind::kRelu;
    o.repeat_runs = 2;
    const RunResult r = run_kernel(conv_call(g, x, w, b), o);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    const std::vector<double> want = emulate(g, x, w, b, relu);
    const float* got = r.outputs[0].tensor().data_as<const float>();
    ASSERT_EQ(r.outputs[0].tensor().numel(), int64_t(want.size()));
    double worst = 0, scale = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      worst = std::max(worst, std::abs(got[i] - want[i]));
      scale = std::max(scale, std::abs(want[i]));
    }
    EXPECT_LT(worst, 1e-5 * scale) << "int8 conv differs from the emulation of its arithmetic";
    // Against float32: each of the K products off by at most |x| s_w / 2 + |w| s_x / 2 +
    // s_x s_w / 4 (|x| <= 3, |w| <= 1, s_x <= 3/127, or 4/127 in 7 bits; s_w <= 1/127).
    RunOptions f = o;
    f.precision = Precision::kFloat32;
    const RunResult ref = run_kernel(conv_call(g, x, w, b), f);
    ASSERT_TRUE(ref.status.ok()) << ref.status.message();
    const double k = double(g.c / g.groups * g.k * g.k);
    const double sx_max = (int8_pairs_saturate() ? 4.0 : 3.0) / 127;
    const double bound = k * (3.0 / 254 + sx_max / 2 + 3 * sx_max / (4 * 127));
    const float* fv = ref.outputs[0].tensor().data_as<const float>();
    double from_f32 = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_LE(std::abs(got[i] - fv[i]), bound) << i;
      from_f32 = std::max(from_f32, double(std::abs(got[i] - fv[i])));
    }
    EXPECT_GT(from_f32, 0.0) << "int8 equals float32: the int8 path did not run";
  }
}

// Depthwise / grouped convolutions and dot products shorter than 64 are memory-bound: the
// kernel computes them in float32 (bit-identical to the float32 kernel) even in int8.
TEST(ConvInt8, GroupedAndShortConvsComputeInFloat32) {
  std::mt19937 rng(test_seed());
  const Int8ConvGeometry cases[] = {{1, 32, 10, 10, 32, 3, 1, 1, 32, true},  // depthwise
                                    {1, 8, 10, 10, 16, 3, 2, 1, 2, false},   // grouped
                                    {1, 3, 12, 12, 16, 3, 1, 1, 1, true},    // K = 27
                                    {2, 48, 6, 6, 20, 1, 1, 0, 1, true}};    // K = 48
  for (const Int8ConvGeometry& g : cases) {
    const Buffer x = Buffer::random(rng, {g.n, g.c, g.h, g.w});
    const Buffer w = Buffer::random(rng, {g.oc, g.c / g.groups, g.k, g.k});
    const Buffer b = Buffer::random(rng, {g.oc});
    RunOptions o;
    o.impl = KernelImpl::kOptimized;
    o.data_at_prepare = true;
    o.precision = Precision::kInt8;
    const RunResult r = run_kernel(conv_call(g, x, w, b), o);
    o.precision = Precision::kFloat32;
    const RunResult f = run_kernel(conv_call(g, x, w, b), o);
    ASSERT_TRUE(r.status.ok() && f.status.ok());
    const std::span<const float> a = r.outputs[0].span<float>(), e = f.outputs[0].span<float>();
    ASSERT_EQ(a.size(), e.size());
    EXPECT_EQ(std::memcmp(a.data(), e.data(), a.size() * sizeof(float)), 0)
        << "groups " << g.groups << " c " << g.c << " k " << g.k;
  }
}

TEST(ConvInt8, NanInTheInputGivesNan) {
  std::mt19937 rng(test_seed());
  const Int8ConvGeometry g{1, 8, 6, 6, 5, 3, 1, 1, 1, true};
  Buffer x = Buffer::random(rng, {1, 8, 6, 6});
  x.span<float>()[17] = std::nanf("");
  const Buffer w = Buffer::random(rng, {5, 8, 3, 3});
  const Buffer b = Buffer::random(rng, {5});
  RunOptions o;
  o.impl = KernelImpl::kOptimized;
  o.data_at_prepare = true;
  o.precision = Precision::kInt8;
  o.epilogue = ops::UnaryKind::kRelu;
  const RunResult r = run_kernel(conv_call(g, x, w, b), o);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  // The input has no int8 scale: every output is NaN (torch gives NaN where the window meets
  // it; never a finite number there), and relu keeps NaN.
  for (float v : r.outputs[0].span<float>()) EXPECT_TRUE(std::isnan(v)) << v;
}

}  // namespace
}  // namespace tir::kernels::testing
