// conv2d / convolution: oneDNN vs reference on random geometry (groups, stride, padding,
// dilation, bias, unbatched), with and without weights known at prepare (packed path).
// Tolerance 1e-4: C*KH*KW float products summed in a different order than the double
// reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <oneapi/dnnl/dnnl.hpp>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

constexpr double kConvTol = 1e-4;

struct ConvGeometry {
  int64_t n, c, h, w, oc, kh, kw, groups, sh, sw, ph, pw, dh, dw;
  bool bias;
};

ConvGeometry random_geometry(std::mt19937& rng) {
  ConvGeometry g{};
  g.groups = pick(rng, 1, 3) == 3 ? pick(rng, 2, 4) : 1;
  g.n = pick(rng, 1, 3);
  g.c = g.groups * pick(rng, 1, 6);
  g.oc = g.groups * pick(rng, 1, 6);
  g.kh = pick(rng, 1, 5);
  g.kw = pick(rng, 1, 5);
  g.dh = pick(rng, 1, 2);
  g.dw = pick(rng, 1, 2);
  g.sh = pick(rng, 1, 3);
  g.sw = pick(rng, 1, 3);
  g.ph = pick(rng, 0, 2);
  g.pw = pick(rng, 0, 2);
  g.h = (g.kh - 1) * g.dh + 1 + pick(rng, 0, 12);
  g.w = (g.kw - 1) * g.dw + 1 + pick(rng, 0, 12);
  g.bias = pick(rng, 0, 1) == 1;
  return g;
}

CallBuilder conv_call(std::mt19937& rng, const ConvGeometry& g, bool convolution, bool unbatched) {
  CallBuilder cb(convolution ? "aten::convolution" : "aten::conv2d");
  std::vector<int64_t> xs = {g.n, g.c, g.h, g.w};
  if (unbatched) xs.erase(xs.begin());
  cb.tensor(Buffer::random(rng, xs))
      .tensor(Buffer::random(rng, {g.oc, g.c / g.groups, g.kh, g.kw}));
  if (g.bias) {
    cb.tensor(Buffer::random(rng, {g.oc}));
  } else {
    cb.none();
  }
  cb.ints({g.sh, g.sw}).ints({g.ph, g.pw}).ints({g.dh, g.dw});
  if (convolution) cb.b(false).ints({0, 0});
  cb.i(g.groups);
  return cb;
}

TEST(Conv, Conv2dMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 25; ++c) {
    const ConvGeometry g = random_geometry(rng);
    SCOPED_TRACE("case " + std::to_string(c));
    expect_opt_matches_ref(conv_call(rng, g, false, c % 5 == 4), kConvTol, kConvTol, 1, c % 2 == 0);
  }
}

TEST(Conv, ConvolutionMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 25; ++c) {
    const ConvGeometry g = random_geometry(rng);
    SCOPED_TRACE("case " + std::to_string(c));
    expect_opt_matches_ref(conv_call(rng, g, true, false), kConvTol, kConvTol, 1, c % 2 == 1);
  }
}

TEST(Conv, ResNetShapes) {
  std::mt19937 rng(test_seed());
  const ConvGeometry stem{1, 3, 32, 32, 16, 7, 7, 1, 2, 2, 3, 3, 1, 1, false};
  const ConvGeometry block{2, 16, 14, 14, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  const ConvGeometry depthwise{1, 8, 9, 9, 8, 3, 3, 8, 1, 1, 1, 1, 1, 1, true};
  // Dense 3x3 stride 1 with 16k channels: the optimized kernel runs these as Winograd.
  const ConvGeometry wide{1, 64, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  const ConvGeometry odd{2, 32, 10, 13, 48, 3, 3, 1, 1, 1, 1, 1, 1, 1, false};
  for (const ConvGeometry& g : {stem, block, depthwise, wide, odd}) {
    expect_opt_matches_ref(conv_call(rng, g, false, false), kConvTol, kConvTol, 1, true);
  }
}

// bf16 compute (KernelCall::precision, as a session on a CPU with native bf16 asks for it):
// bfloat16 source and weights, float32 accumulation and output, for the kinds of convolution
// models have (stem, 3x3 Winograd-shaped, depthwise, grouped, 1x1, odd sizes), weights packed
// at prepare and converted per run. Within bf16 rounding of the float32 reference (each
// operand rounded to 8 bits: relative error ~2^-8 per product, summed over C*KH*KW terms;
// bound 2e-2 of the output's scale). Where oneDNN has a bf16 convolution for this CPU
// (AVX-512 and up: natively with AVX512-BF16/AMX, emulated on plain AVX-512) the result must
// differ from float32's (bf16 really ran); on an AVX2 CPU the node computes float32.
TEST(Conv, Bf16WithinBf16RoundingOfTheReference) {
  std::mt19937 rng(test_seed());
  const ConvGeometry stem{1, 3, 32, 32, 16, 7, 7, 1, 2, 2, 3, 3, 1, 1, false};
  const ConvGeometry wide{1, 64, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, true};
  const ConvGeometry depthwise{1, 32, 9, 9, 32, 3, 3, 32, 1, 1, 1, 1, 1, 1, true};
  const ConvGeometry grouped{2, 32, 10, 13, 48, 3, 3, 4, 2, 2, 1, 1, 1, 1, false};
  const ConvGeometry pointwise{1, 64, 14, 14, 128, 1, 1, 1, 1, 1, 0, 0, 1, 1, true};
  const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const unsigned avx512 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core);
  const bool bf16_expected = (isa & avx512) == avx512;
  int differing = 0, cases = 0;
  for (const ConvGeometry& g : {stem, wide, depthwise, grouped, pointwise})
    for (const bool packed : {true, false}) {
      SCOPED_TRACE("oc " + std::to_string(g.oc) + " k " + std::to_string(g.kh) + " groups " +
                   std::to_string(g.groups) + (packed ? " packed" : " per run"));
      const CallBuilder cb = conv_call(rng, g, false, false);
      RunOptions ref_opts{KernelImpl::kReference};
      RunOptions f32_opts{KernelImpl::kOptimized, 1, packed, 2};
      RunOptions bf16_opts = f32_opts;
      bf16_opts.precision = Precision::kBFloat16;
      const RunResult ref = run_kernel(cb, ref_opts);
      const RunResult f32 = run_kernel(cb, f32_opts);
      const RunResult bf16 = run_kernel(cb, bf16_opts);
      ASSERT_TRUE(ref.status.ok() && f32.status.ok() && bf16.status.ok()) << bf16.status.message();
      const std::span<const float> want = ref.outputs[0].span<float>();
      const std::span<const float> got = bf16.outputs[0].span<float>();
      const std::span<const float> plain = f32.outputs[0].span<float>();
      double scale = 0, err = 0, from_f32 = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        scale = std::max(scale, double(std::fabs(want[i])));
        err = std::max(err, double(std::fabs(got[i] - want[i])));
        from_f32 = std::max(from_f32, double(std::fabs(got[i] - plain[i])));
      }
      EXPECT_LE(err, 2e-2 * scale) << "max|bf16 - reference| " << err << " of " << scale;
      differing += from_f32 > 1e-5 * scale;
      ++cases;
    }
  if (bf16_expected)
    EXPECT_EQ(differing, cases) << "bf16 asked for on an AVX-512 CPU, yet float32 results";
  else
    EXPECT_EQ(differing, 0) << "no bf16 convolution on this CPU, yet not the float32 results";
}

TEST(Conv, OutputShapeAndClosedForm) {
  // 1x1 input channel, 3x3 ones kernel, padding 1: each output counts in-bounds taps.
  CallBuilder cb("aten::conv2d");
  Buffer x = Buffer::f32({1, 1, 3, 3});
  for (float& v : x.span<float>()) v = 1.f;
  Buffer w = Buffer::f32({1, 1, 3, 3});
  for (float& v : w.span<float>()) v = 1.f;
  cb.tensor(x).tensor(w).none().ints({1, 1}).ints({1, 1}).ints({1, 1}).i(1);
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{1, 1, 3, 3}));
    const float want[9] = {4, 6, 4, 6, 9, 6, 4, 6, 4};
    for (int i = 0; i < 9; ++i) EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i), want[i]);
  }
}

TEST(Conv, WeightsSwappedAfterPrepareAreUsed) {
  // The packed-weight path must notice a different weight pointer at run time.
  std::mt19937 rng(test_seed());
  const ConvGeometry g{1, 16, 10, 10, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, false};
  CallBuilder cb = conv_call(rng, g, false, false);
  const KernelEntry* e = KernelRegistry::global().find_exact(
      "aten::conv2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized);
  ASSERT_NE(e, nullptr);
  auto k = e->factory();
  std::vector<Tensor> in = {cb.inputs()[0].tensor(), cb.inputs()[1].tensor()};
  std::vector<Tensor> out(1);
  KernelCall call{cb.op(), "n", cb.args(), in, out};
  PrepareInfo info;
  ASSERT_TRUE(k->prepare(call, &info).ok());
  Buffer w2 = Buffer::random(rng, {16, 16, 3, 3});
  in[1].data = w2.tensor().data;
  Buffer y = Buffer::f32({1, 16, 10, 10});
  out[0].data = y.tensor().data;
  std::vector<uint64_t> scratch(info.scratch_bytes / 8 + 16);
  void* s =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  ASSERT_TRUE(k->run(call, s).ok());
  CallBuilder ref("aten::conv2d");
  ref.tensor(cb.inputs()[0]).tensor(w2).none().ints({1, 1}).ints({1, 1}).ints({1, 1}).i(1);
  RunResult r = run_kernel(ref);
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(all_close(y, r.outputs[0], kConvTol, kConvTol));
}

TEST(Conv, RejectsBadArguments) {
  auto base = [](std::vector<int64_t> xs, std::vector<int64_t> ws, int64_t groups) {
    CallBuilder cb("aten::conv2d");
    cb.tensor(Buffer::f32(xs)).tensor(Buffer::f32(ws)).none();
    cb.ints({1, 1}).ints({0, 0}).ints({1, 1}).i(groups);
    return cb;
  };
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(base({1, 3, 8, 8}, {4, 2, 3, 3}, 1), {impl});
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status.message().find("weight"), std::string::npos) << r.status.message();
    r = run_kernel(base({1, 3, 2, 2}, {4, 3, 3, 3}, 1), {impl});
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.message();
    r = run_kernel(base({1, 4, 8, 8}, {4, 2, 3, 3}, 3), {impl});
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.message();
    CallBuilder tr("aten::convolution");
    tr.tensor(Buffer::f32({1, 3, 8, 8})).tensor(Buffer::f32({3, 4, 3, 3})).none();
    tr.ints({1, 1}).ints({0, 0}).ints({1, 1}).b(true).ints({0, 0}).i(1);
    r = run_kernel(tr, {impl});
    EXPECT_EQ(r.status.code(), StatusCode::kUnsupported);
    EXPECT_NE(r.status.message().find("aten::convolution"), std::string::npos);
    // 1-D convolution runs (as 2-D with H = 1); a 1-D weight with a 2-D input does not.
    CallBuilder c1("aten::convolution");
    c1.tensor(Buffer::f32({1, 3, 8})).tensor(Buffer::f32({4, 3, 3})).none();
    c1.ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1);
    r = run_kernel(c1, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.outputs[0].tensor().rank, 3);
    EXPECT_EQ(r.outputs[0].tensor().sizes[2], 6);
    CallBuilder c1bad("aten::convolution");
    c1bad.tensor(Buffer::f32({1, 3, 8, 8})).tensor(Buffer::f32({4, 3, 3})).none();
    c1bad.ints({1}).ints({0}).ints({1}).b(false).ints({0}).i(1);
    r = run_kernel(c1bad, {impl});
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.message();
  }
}

}  // namespace
}  // namespace tir::kernels::testing
