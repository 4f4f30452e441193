// linear / addmm / mm: oneDNN vs reference on random shapes, plus rejection of bad shapes.
// Tolerance 1e-4: both sides accumulate K products, the reference in double and oneDNN in
// float with a different summation order, so the float result can be ~K*eps off.
#include <gtest/gtest.h>

#include "core/float16.h"
#include "kernels/cpu/onednn/gemm_half_weight.h"
#include "kernels/cpu/onednn/onednn_context.h"
#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

constexpr double kGemmTol = 1e-4;

TEST(Gemm, LinearMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 25; ++c) {
    const int64_t k = pick(rng, 1, 70), n = pick(rng, 1, 70);
    std::vector<int64_t> xs;
    for (int64_t d = 0, r = pick(rng, 1, 3); d < r - 1; ++d) xs.push_back(pick(rng, 1, 6));
    xs.push_back(k);
    CallBuilder cb("aten::linear");
    cb.tensor(Buffer::random(rng, xs)).tensor(Buffer::random(rng, {n, k}));
    const int bias_kind = c % 3;  // none, [N], [1]
    if (bias_kind == 0) cb.none();
    if (bias_kind == 1) cb.tensor(Buffer::random(rng, {n}));
    if (bias_kind == 2) cb.tensor(Buffer::random(rng, {1}));
    SCOPED_TRACE("case " + std::to_string(c) + " x " + shape_str(xs) + " N " + std::to_string(n));
    expect_opt_matches_ref(cb, kGemmTol, kGemmTol);
  }
}

TEST(Gemm, LinearShapes) {
  CallBuilder cb("aten::linear");
  cb.tensor(Buffer::f32({2, 3, 4})).tensor(Buffer::f32({5, 4})).none();
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 3, 5}));
  // 1-D input: [K] -> [N]; closed form with ones: every output = K + bias
  CallBuilder one("aten::linear");
  one.tensor(Buffer::f32({3}, {1, 1, 1}))
      .tensor(Buffer::f32({2, 3}, {1, 1, 1, 1, 1, 1}))
      .tensor(Buffer::f32({2}, {10, 20}));
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult o = run_kernel(one, {impl});
    ASSERT_TRUE(o.status.ok()) << o.status.message();
    EXPECT_EQ(o.outputs[0].shape(), (std::vector<int64_t>{2}));
    EXPECT_FLOAT_EQ(o.outputs[0].at<float>(0), 13.f);
    EXPECT_FLOAT_EQ(o.outputs[0].at<float>(1), 23.f);
  }
}

TEST(Gemm, AddmmMatchesReference) {
  std::mt19937 rng(test_seed());
  const double scalars[] = {1.0, 0.5, 0.0, -2.0};
  for (int c = 0; c < 25; ++c) {
    const int64_t m = pick(rng, 1, 40), k = pick(rng, 1, 40), n = pick(rng, 1, 40);
    std::vector<int64_t> self;
    switch (c % 5) {
      case 0:
        self = {n};
        break;
      case 1:
        self = {1, n};
        break;
      case 2:
        self = {m, 1};
        break;
      case 3:
        self = {m, n};
        break;
      default:
        self = {};
        break;
    }
    CallBuilder cb("aten::addmm");
    cb.tensor(Buffer::random(rng, self))
        .tensor(Buffer::random(rng, {m, k}))
        .tensor(Buffer::random(rng, {k, n}));
    const double beta = scalars[c % 4], alpha = scalars[(c / 4) % 4];
    if (c % 2) {
      cb.f(beta).f(alpha);
    } else {
      cb.i(static_cast<int64_t>(beta)).i(static_cast<int64_t>(alpha));
    }
    SCOPED_TRACE("case " + std::to_string(c) + " self " + shape_str(self));
    expect_opt_matches_ref(cb, kGemmTol, kGemmTol);
  }
}

TEST(Gemm, MmMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 25; ++c) {
    const int64_t m = pick(rng, 1, 80), k = pick(rng, 1, 80), n = pick(rng, 1, 80);
    CallBuilder cb("aten::mm");
    cb.tensor(Buffer::random(rng, {m, k})).tensor(Buffer::random(rng, {k, n}));
    expect_opt_matches_ref(cb, kGemmTol, kGemmTol);
  }
}

/// `f32`'s values rounded to `dtype` (float16 or bfloat16), and those values widened back.
std::pair<Buffer, Buffer> narrowed(const Buffer& f32, DType dtype) {
  Buffer half(dtype, f32.shape()), wide = Buffer::f32(f32.shape());
  for (size_t i = 0; i < f32.span<float>().size(); ++i) {
    const float x = f32.span<float>()[i];
    const uint16_t h = dtype == DType::kBFloat16 ? float_to_bf16(x) : float_to_fp16(x);
    half.span<uint16_t>()[i] = h;
    wide.span<float>()[i] = dtype == DType::kBFloat16 ? bf16_to_float(h) : fp16_to_float(h);
  }
  return {half, wide};
}

// A half-precision program's GEMM reads its float16/bfloat16 weight as stored: the reference
// and the optimized kernel (row products below HalfWeightGemm::kTiledRows rows, oneDNN over
// widened tiles from it, several tiles and a narrower last one when K is large) equal the
// float32 product of the widened weight.
TEST(Gemm, HalfWeightMatchesWidenedFloat32) {
  std::mt19937 rng(test_seed());
  struct Case {
    const char* op;
    int64_t m, k, n;
  };
  const Case cases[] = {
      {"aten::linear", 1, 768, 70},   {"aten::linear", 5, 37, 300}, {"aten::linear", 16, 4096, 300},
      {"aten::linear", 40, 64, 129},  {"aten::addmm", 1, 300, 130}, {"aten::addmm", 3, 33, 64},
      {"aten::addmm", 20, 4096, 150}, {"aten::mm", 2, 50, 65},      {"aten::mm", 33, 3000, 200}};
  for (DType dtype : {DType::kBFloat16, DType::kFloat16}) {
    for (const Case& c : cases) {
      const bool linear = std::string_view(c.op) == "aten::linear";
      const Buffer a = Buffer::random(rng, {c.m, c.k});
      const auto [half, wide] =
          narrowed(Buffer::random(rng, linear ? std::vector<int64_t>{c.n, c.k}
                                              : std::vector<int64_t>{c.k, c.n}),
                   dtype);
      const Buffer bias = Buffer::random(rng, {c.n});
      CallBuilder narrow(c.op), want(c.op);
      if (std::string_view(c.op) == "aten::addmm") {
        narrow.tensor(bias).tensor(a).tensor(half).f(0.5).f(2.0);
        want.tensor(bias).tensor(a).tensor(wide).f(0.5).f(2.0);
      } else {
        narrow.tensor(a).tensor(half);
        want.tensor(a).tensor(wide);
        if (linear) {
          narrow.tensor(bias);
          want.tensor(bias);
        }
      }
      SCOPED_TRACE(std::string(c.op) + " " + std::string(dtype_name(dtype)) + " m " +
                   std::to_string(c.m) + " k " + std::to_string(c.k) + " n " + std::to_string(c.n));
      const RunResult ref = run_kernel(want, {KernelImpl::kReference});
      ASSERT_TRUE(ref.status.ok()) << ref.status.message();
      // Where the CPU computes bf16 natively (or TIR_BF16_EMULATED=1 on AVX-512: the
      // kernels_bf16_emulated test), a bf16 weight with kTiledRows rows or more runs one bf16
      // matmul: A rounded to bf16 too (2^-9 relative per product, about sqrt(K) of them add).
      const bool native =
          dtype == DType::kBFloat16 && c.m >= HalfWeightGemm::kTiledRows && onednn_native_bf16();
      const double tol = native ? 3e-3 * std::sqrt(double(c.k)) : kGemmTol;
      for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
        const RunResult got = run_kernel(narrow, {impl});
        ASSERT_TRUE(got.status.ok()) << got.status.message();
        const double t = impl == KernelImpl::kOptimized ? tol : kGemmTol;
        EXPECT_TRUE(all_close(got.outputs[0], ref.outputs[0], t, t));
        // The bf16 matmul really ran: A's rounding moves the result beyond float32 noise.
        if (native && impl == KernelImpl::kOptimized)
          EXPECT_FALSE(all_close(got.outputs[0], ref.outputs[0], 1e-6, 1e-6));
      }
    }
  }
}

TEST(Gemm, ZeroSizedDims) {
  CallBuilder cb("aten::linear");
  cb.tensor(Buffer::f32({0, 4})).tensor(Buffer::f32({3, 4})).none();
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{0, 3}));
  }
}

void expect_gemm_rejected(const CallBuilder& cb, std::string_view arg_word) {
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_FALSE(r.status.ok());
    EXPECT_NE(r.status.message().find(cb.op()), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find(arg_word), std::string::npos) << r.status.message();
  }
}

TEST(Gemm, RejectsBadShapes) {
  CallBuilder lin("aten::linear");
  lin.tensor(Buffer::f32({2, 4})).tensor(Buffer::f32({3, 5})).none();
  expect_gemm_rejected(lin, "in_features");
  CallBuilder bias("aten::linear");
  bias.tensor(Buffer::f32({2, 4})).tensor(Buffer::f32({3, 4})).tensor(Buffer::f32({4}));
  expect_gemm_rejected(bias, "bias");
  CallBuilder mm("aten::mm");
  mm.tensor(Buffer::f32({2, 4})).tensor(Buffer::f32({3, 5}));
  expect_gemm_rejected(mm, "mat2");
  CallBuilder mm3("aten::mm");
  mm3.tensor(Buffer::f32({2, 2, 4})).tensor(Buffer::f32({4, 5}));
  expect_gemm_rejected(mm3, "2-D");
  CallBuilder addmm("aten::addmm");
  addmm.tensor(Buffer::f32({3, 3})).tensor(Buffer::f32({2, 4})).tensor(Buffer::f32({4, 5}));
  addmm.i(1).i(1);
  expect_gemm_rejected(addmm, "self");
  CallBuilder missing("aten::mm");
  missing.tensor(Buffer::f32({2, 4}));
  expect_gemm_rejected(missing, "arguments");
}

}  // namespace
}  // namespace tir::kernels::testing

namespace tir::kernels::testing {
namespace {

// From its second run the oneDNN GEMM packs a weight B (bytes known at prepare) into the
// blocked layout oneDNN prefers and runs another primitive on it; expect_opt_matches_ref's
// optimized side runs twice, so the compared output is the packed primitive's.
TEST(Gemm, WeightsPackedFromTheSecondRunMatchReference) {
  std::mt19937 rng(test_seed());
  const int64_t shapes[][3] = {{8, 96, 128}, {33, 768, 64}, {1, 64, 200}, {128, 256, 96}};
  for (const auto& [m, k, n] : shapes) {
    SCOPED_TRACE("m " + std::to_string(m) + " k " + std::to_string(k) + " n " + std::to_string(n));
    CallBuilder linear("aten::linear");
    linear.tensor(Buffer::random(rng, {m, k}))
        .tensor(Buffer::random(rng, {n, k}))
        .tensor(Buffer::random(rng, {n}));
    expect_opt_matches_ref(linear, kGemmTol, kGemmTol, 1, true);
    CallBuilder mm("aten::mm");
    mm.tensor(Buffer::random(rng, {m, k})).tensor(Buffer::random(rng, {k, n}));
    expect_opt_matches_ref(mm, kGemmTol, kGemmTol, 1, true);
  }
}

TEST(Gemm, PackedWeightsFollowASwap) {
  // Run three times (the second packs), then point B at other weights: the next run must
  // compute with them, as a fresh reference run does.
  std::mt19937 rng(test_seed());
  CallBuilder cb("aten::linear");
  cb.tensor(Buffer::random(rng, {16, 96})).tensor(Buffer::random(rng, {128, 96})).none();
  const KernelEntry* e = KernelRegistry::global().find_exact(
      "aten::linear", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized);
  ASSERT_NE(e, nullptr);
  auto kernel = e->factory();
  std::vector<Tensor> in = {cb.inputs()[0].tensor(), cb.inputs()[1].tensor()};
  std::vector<Tensor> out(1);
  KernelCall call{cb.op(), "n", cb.args(), in, out};
  PrepareInfo info;
  ASSERT_TRUE(kernel->prepare(call, &info).ok());
  Buffer y = Buffer::f32({16, 128});
  out[0].data = y.tensor().data;
  std::vector<uint64_t> scratch(info.scratch_bytes / 8 + 16);
  void* s =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  for (int r = 0; r < 3; ++r) ASSERT_TRUE(kernel->run(call, s).ok());
  Buffer w2 = Buffer::random(rng, {128, 96});
  in[1].data = w2.tensor().data;
  ASSERT_TRUE(kernel->run(call, s).ok());
  CallBuilder ref("aten::linear");
  ref.tensor(cb.inputs()[0]).tensor(w2).none();
  RunResult want = run_kernel(ref);
  ASSERT_TRUE(want.status.ok());
  EXPECT_TRUE(all_close(y, want.outputs[0], kGemmTol, kGemmTol));
}

}  // namespace
}  // namespace tir::kernels::testing
