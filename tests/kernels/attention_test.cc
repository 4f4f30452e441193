// Scaled dot-product attention: the reference kernel against a naive
// softmax(Q K^T * scale + mask) V written here (causal, bool mask, float mask, GQA,
// explicit scale, 3-D inputs, fully masked rows), the fused optimized kernel against the
// reference on random shapes, flash_for_cpu's logsumexp, and rejected arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

using V = std::vector<int64_t>;

struct Sdpa {
  V q, k, v;                   // 4-D shapes
  std::optional<Buffer> mask;  // bool or float32, broadcast to [B, H, L, S]
  bool causal = false;
  std::optional<double> scale;
  bool gqa = false;
};

CallBuilder sdpa_call(const Sdpa& s, const Buffer& q, const Buffer& k, const Buffer& v) {
  CallBuilder cb("aten::scaled_dot_product_attention");
  cb.tensor(q).tensor(k).tensor(v);
  s.mask ? cb.tensor(*s.mask) : cb.none();
  cb.f(0.0).b(s.causal);
  s.scale ? cb.f(*s.scale) : cb.none();
  cb.b(s.gqa);
  return cb;
}

// Naive attention on 4-D contiguous inputs; also returns logsumexp per row.
Buffer naive(const Sdpa& s, const Buffer& q, const Buffer& k, const Buffer& v, Buffer* lse) {
  const int64_t B = s.q[0], H = s.q[1], L = s.q[2], E = s.q[3], Hk = s.k[1], S = s.k[2],
                Ev = s.v[3];
  Buffer out = Buffer::f32({B, H, L, Ev});
  *lse = Buffer::f32({B, H, L});
  const double scale = s.scale.value_or(1.0 / std::sqrt(static_cast<double>(E)));
  V mshape = s.mask ? s.mask->shape() : V{};
  auto mask_at = [&](int64_t b, int64_t h, int64_t i, int64_t j) -> double {
    const int64_t full[4] = {b, h, i, j};
    int64_t off = 0;
    const size_t r = mshape.size();
    for (size_t d = 0; d < r; ++d) {
      const int64_t idx = mshape[d] == 1 ? 0 : full[4 - r + d];
      off = off * mshape[d] + idx;
    }
    if (s.mask->tensor().dtype == DType::kBool) {
      return s.mask->at<bool>(off) ? 0.0 : -std::numeric_limits<double>::infinity();
    }
    return s.mask->at<float>(off);
  };
  std::vector<double> p(S);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < L; ++i) {
        const int64_t kh = h / (H / Hk);
        double mx = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < S; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < E; ++c)
            dot += q.at<float>(((b * H + h) * L + i) * E + c) *
                   static_cast<double>(k.at<float>(((b * Hk + kh) * S + j) * E + c));
          p[j] = dot * scale + (s.mask ? mask_at(b, h, i, j) : 0.0);
          if (s.causal && j > i) p[j] = -std::numeric_limits<double>::infinity();
          mx = std::max(mx, p[j]);
        }
        double sum = 0;
        for (int64_t j = 0; j < S; ++j) sum += std::isinf(mx) ? 0 : std::exp(p[j] - mx);
        const int64_t row = (b * H + h) * L + i;
        lse->span<float>()[row] = sum == 0 ? 0.f : static_cast<float>(mx + std::log(sum));
        for (int64_t c = 0; c < Ev; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < S && sum > 0; ++j)
            acc += std::exp(p[j] - mx) / sum * v.at<float>(((b * Hk + kh) * S + j) * Ev + c);
          out.span<float>()[row * Ev + c] = static_cast<float>(acc);
        }
      }
  return out;
}

Buffer bool_mask(std::mt19937& rng, V shape) {
  Buffer m(DType::kBool, std::move(shape));
  for (uint8_t& x : m.span<uint8_t>()) x = rng() % 3 != 0;
  return m;
}

std::vector<Sdpa> cases(std::mt19937& rng) {
  std::vector<Sdpa> c;
  c.push_back({{2, 3, 5, 8}, {2, 3, 7, 8}, {2, 3, 7, 6}});
  Sdpa causal{{1, 2, 9, 4}, {1, 2, 9, 4}, {1, 2, 9, 4}};
  causal.causal = true;
  c.push_back(causal);
  Sdpa wide = causal;  // L < S and L > S (top-left aligned)
  wide.q = {1, 2, 3, 4};
  c.push_back(wide);
  wide.q = {1, 2, 12, 4};
  c.push_back(wide);
  Sdpa bm{{2, 2, 6, 8}, {2, 2, 5, 8}, {2, 2, 5, 8}};
  bm.mask = bool_mask(rng, {6, 5});
  c.push_back(bm);
  Sdpa fm{{2, 2, 6, 8}, {2, 2, 5, 8}, {2, 2, 5, 3}};
  fm.mask = Buffer::random(rng, {2, 1, 6, 5}, -3.f, 1.f);
  fm.scale = 0.3;
  c.push_back(fm);
  Sdpa gqa{{2, 6, 4, 8}, {2, 2, 7, 8}, {2, 2, 7, 8}};
  gqa.gqa = true;
  gqa.causal = true;
  c.push_back(gqa);
  Sdpa masked_row{{1, 1, 2, 4}, {1, 1, 3, 4}, {1, 1, 3, 4}};
  masked_row.mask = Buffer(DType::kBool, {2, 3});
  masked_row.mask->span<uint8_t>()[4] = 1;  // row 0 fully masked
  c.push_back(masked_row);
  return c;
}

TEST(Attention, ReferenceMatchesNaive) {
  std::mt19937 rng(test_seed());
  for (const Sdpa& s : cases(rng)) {
    const Buffer q = Buffer::random(rng, s.q), k = Buffer::random(rng, s.k),
                 v = Buffer::random(rng, s.v);
    SCOPED_TRACE("q " + shape_str(s.q) + " k " + shape_str(s.k));
    RunResult r = run_kernel(sdpa_call(s, q, k, v));
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    Buffer lse;
    EXPECT_TRUE(all_close(r.outputs[0], naive(s, q, k, v, &lse), 1e-5, 1e-6));
  }
}

TEST(Attention, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  std::vector<Sdpa> all = cases(rng);
  for (int c = 0; c < 8; ++c) {  // larger shapes: several row blocks, long rows
    const int64_t b = 1 + rng() % 2, hk = 1 + rng() % 2, h = hk * (1 + rng() % 2),
                  l = 1 + rng() % 70, s = 1 + rng() % 90, e = 1 + rng() % 40;
    Sdpa x{{b, h, l, e}, {b, hk, s, e}, {b, hk, s, 1 + static_cast<int64_t>(rng() % 40)}};
    x.gqa = h != hk;
    if (c % 3 == 0) x.causal = true;
    if (c % 3 == 1) x.mask = bool_mask(rng, {b, 1, l, s});
    if (c % 3 == 2) x.mask = Buffer::random(rng, {l, s});
    all.push_back(x);
  }
  for (const Sdpa& s : all) {
    const Buffer q = Buffer::random(rng, s.q), k = Buffer::random(rng, s.k),
                 v = Buffer::random(rng, s.v);
    SCOPED_TRACE("q " + shape_str(s.q) + " k " + shape_str(s.k) + " v " + shape_str(s.v));
    expect_opt_matches_ref(sdpa_call(s, q, k, v), 1e-4, 1e-5);
  }
}

// Masked keys weigh exactly 0 in torch. A masked or causally cut-off key whose value is
// huge must contribute nothing (a subnormal weight such as Eigen's exp(-inf) = 3e-39 would
// leak 1e30 * 1e-41 into the output, and slow the product down on the FPU's subnormal path).
TEST(Attention, MaskedKeysWeighExactlyZero) {
  const int64_t L = 40, E = 8;  // more rows than the optimized kernel's block of 32
  for (const bool causal : {false, true}) {
    Sdpa s{{1, 2, L, E}, {1, 2, L, E}, {1, 2, L, E}};
    s.causal = causal;
    if (!causal) {  // every row sees key 0 only
      s.mask = Buffer(DType::kBool, {L, L});
      for (int64_t i = 0; i < L; ++i) s.mask->span<bool>()[i * L] = true;
    }
    std::mt19937 rng(7);
    const Buffer q = Buffer::random(rng, s.q), k = Buffer::random(rng, s.k);
    Buffer v = Buffer::f32(s.v);
    for (int64_t h = 0; h < 2; ++h)  // key 0 has value 0, every other key 1e30
      for (int64_t j = 1; j < L; ++j)
        for (int64_t c = 0; c < E; ++c) v.span<float>()[(h * L + j) * E + c] = 1e30f;
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      RunOptions o;
      o.impl = impl;
      const RunResult r = run_kernel(sdpa_call(s, q, k, v), o);
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      const auto out = r.outputs[0].span<float>();
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t i = 0; i < (causal ? 1 : L); ++i)  // causal: row 0 sees key 0 only
          for (int64_t c = 0; c < E; ++c)
            ASSERT_EQ(out[(h * L + i) * E + c], 0.f)
                << (causal ? "causal" : "bool mask") << ", impl " << int(impl) << ", row " << i;
    }
  }
}

TEST(Attention, ThreeDimensionalInputs) {
  std::mt19937 rng(test_seed());
  CallBuilder cb("aten::scaled_dot_product_attention");
  cb.tensor(Buffer::random(rng, {2, 5, 4}))
      .tensor(Buffer::random(rng, {2, 3, 4}))
      .tensor(Buffer::random(rng, {2, 3, 6}));
  cb.none().f(0.0).b(false).none().b(false);
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (V{2, 5, 6}));
  expect_opt_matches_ref(cb, 1e-4, 1e-5);
}

TEST(Attention, FlashForCpuLogsumexp) {
  std::mt19937 rng(test_seed());
  for (bool causal : {false, true}) {
    Sdpa s{{2, 2, 6, 8}, {2, 2, 6, 8}, {2, 2, 6, 8}};
    s.causal = causal;
    if (!causal) s.mask = Buffer::random(rng, {6, 6});
    const Buffer q = Buffer::random(rng, s.q), k = Buffer::random(rng, s.k),
                 v = Buffer::random(rng, s.v);
    CallBuilder cb("aten::_scaled_dot_product_flash_attention_for_cpu");
    cb.tensor(q).tensor(k).tensor(v).f(0.0).b(causal);
    s.mask ? cb.tensor(*s.mask) : cb.none();
    cb.none();
    RunResult r = run_kernel(cb, {KernelImpl::kReference, 2});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    Buffer lse;
    const Buffer want = naive(s, q, k, v, &lse);
    EXPECT_TRUE(all_close(r.outputs[0], want, 1e-5, 1e-6));
    EXPECT_TRUE(all_close(r.outputs[1], lse, 1e-5, 1e-6));
    expect_opt_matches_ref(cb, 1e-4, 1e-5, 2);
  }
}

// Without enable_gqa torch broadcasts one key/value head over every query head (Falcon's
// multi-query attention passes them unexpanded): the naive result with the kv head shared.
TEST(Attention, OneKvHeadBroadcastsWithoutGqa) {
  std::mt19937 rng(31);
  Sdpa s{{2, 4, 5, 8}, {2, 1, 6, 8}, {2, 1, 6, 3}};
  s.causal = true;
  const Buffer q = Buffer::random(rng, s.q), k = Buffer::random(rng, s.k),
               v = Buffer::random(rng, s.v);
  const CallBuilder cb = sdpa_call(s, q, k, v);
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (V{2, 4, 5, 3}));
    Buffer lse;
    EXPECT_TRUE(all_close(r.outputs[0], naive(s, q, k, v, &lse), 1e-5, 1e-6));
  }
}

TEST(Attention, RejectsBadArguments) {
  const Buffer q = Buffer::f32({1, 4, 3, 8}), k = Buffer::f32({1, 3, 5, 8}),
               v = Buffer::f32({1, 3, 5, 8}), k4 = Buffer::f32({1, 4, 5, 8});
  auto expect_rejected = [](const CallBuilder& cb, std::string_view word) {
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      RunResult r = run_kernel(cb, {impl});
      ASSERT_FALSE(r.status.ok());
      EXPECT_NE(r.status.message().find(cb.op()), std::string::npos) << r.status.message();
      EXPECT_NE(r.status.message().find(word), std::string::npos) << r.status.message();
    }
  };
  CallBuilder gqa("aten::scaled_dot_product_attention");
  gqa.tensor(q).tensor(k).tensor(v).none().f(0.0).b(false).none().b(true);
  expect_rejected(gqa, "enable_gqa");
  CallBuilder drop("aten::scaled_dot_product_attention");
  drop.tensor(q).tensor(k4).tensor(k4).none().f(0.1).b(false).none().b(false);
  expect_rejected(drop, "dropout_p");
  CallBuilder both("aten::scaled_dot_product_attention");
  both.tensor(q).tensor(k4).tensor(k4).tensor(Buffer::f32({3, 5})).f(0.0).b(true).none().b(false);
  expect_rejected(both, "is_causal");
  CallBuilder mask("aten::scaled_dot_product_attention");
  mask.tensor(q).tensor(k4).tensor(k4).tensor(Buffer::f32({3, 4})).f(0.0).b(false).none().b(false);
  expect_rejected(mask, "attn_mask");
}

}  // namespace
}  // namespace tir::kernels::testing
