// bmm / matmul / baddbmm: oneDNN vs reference on random shapes covering every
// torch.matmul case (1-D operands, 2-D, batched with broadcast), output shapes as torch,
// a closed-form dot product, and rejection of bad shapes.
#include <gtest/gtest.h>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

using V = std::vector<int64_t>;
constexpr double kMatmulTol = 1e-4;

TEST(Matmul, BmmMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 15; ++c) {
    const int64_t b = pick(rng, 1, 5), m = pick(rng, 1, 40), k = pick(rng, 1, 40),
                  n = pick(rng, 1, 40);
    CallBuilder cb("aten::bmm");
    cb.tensor(Buffer::random(rng, {b, m, k})).tensor(Buffer::random(rng, {b, k, n}));
    expect_opt_matches_ref(cb, kMatmulTol, kMatmulTol);
  }
}

TEST(Matmul, AllBroadcastCases) {
  std::mt19937 rng(test_seed());
  struct Case {
    V a, b, out;
  };
  const Case cases[] = {
      {{7}, {7}, {}},
      {{3, 7}, {7}, {3}},
      {{7}, {7, 5}, {5}},
      {{3, 7}, {7, 5}, {3, 5}},
      {{2, 3, 7}, {7}, {2, 3}},
      {{7}, {2, 7, 5}, {2, 5}},
      {{2, 3, 7}, {7, 5}, {2, 3, 5}},
      {{3, 7}, {2, 7, 5}, {2, 3, 5}},
      {{2, 1, 3, 7}, {4, 7, 5}, {2, 4, 3, 5}},
      {{1, 4, 3, 7}, {2, 1, 7, 5}, {2, 4, 3, 5}},
      {{2, 4, 3, 7}, {2, 4, 7, 5}, {2, 4, 3, 5}},
  };
  for (const Case& c : cases) {
    CallBuilder cb("aten::matmul");
    cb.tensor(Buffer::random(rng, c.a)).tensor(Buffer::random(rng, c.b));
    SCOPED_TRACE(shape_str(c.a) + " @ " + shape_str(c.b));
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), c.out);
    expect_opt_matches_ref(cb, kMatmulTol, kMatmulTol);
  }
}

TEST(Matmul, DotClosedForm) {
  std::vector<float> a(6), b(6);
  double want = 0;
  for (int i = 0; i < 6; ++i) {
    a[i] = static_cast<float>(i + 1);
    b[i] = static_cast<float>(2 - i);
    want += a[i] * b[i];
  }
  CallBuilder cb("aten::matmul");
  cb.tensor(Buffer::f32({6}, a)).tensor(Buffer::f32({6}, b));
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_FLOAT_EQ(r.outputs[0].at<float>(0), static_cast<float>(want));
  }
}

TEST(Matmul, BaddbmmMatchesReference) {
  std::mt19937 rng(test_seed());
  const double scalars[] = {1.0, 0.5, 0.0, -2.0};
  for (int c = 0; c < 16; ++c) {
    const int64_t b = pick(rng, 1, 4), m = pick(rng, 1, 20), k = pick(rng, 1, 20),
                  n = pick(rng, 1, 20);
    const V selfs[] = {{n}, {1, n}, {m, 1}, {b, 1, n}, {b, m, n}};
    CallBuilder cb("aten::baddbmm");
    cb.tensor(Buffer::random(rng, selfs[c % 5]))
        .tensor(Buffer::random(rng, {b, m, k}))
        .tensor(Buffer::random(rng, {b, k, n}))
        .f(scalars[c % 4])
        .f(scalars[(c / 4) % 4]);
    SCOPED_TRACE("case " + std::to_string(c));
    expect_opt_matches_ref(cb, kMatmulTol, kMatmulTol);
  }
}

TEST(Matmul, ZeroSized) {
  CallBuilder cb("aten::matmul");
  cb.tensor(Buffer::f32({0, 3, 4})).tensor(Buffer::f32({4, 2}));
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (V{0, 3, 2}));
  }
}

void expect_matmul_rejected(const CallBuilder& cb, std::string_view word) {
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r = run_kernel(cb, {impl});
    ASSERT_FALSE(r.status.ok());
    EXPECT_NE(r.status.message().find(cb.op()), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find(word), std::string::npos) << r.status.message();
  }
}

TEST(Matmul, RejectsBadShapes) {
  CallBuilder mm("aten::matmul");
  mm.tensor(Buffer::f32({2, 3})).tensor(Buffer::f32({4, 5}));
  expect_matmul_rejected(mm, "cannot be multiplied");
  CallBuilder bc("aten::matmul");
  bc.tensor(Buffer::f32({2, 3, 4})).tensor(Buffer::f32({3, 4, 5}));
  expect_matmul_rejected(bc, "broadcast");
  CallBuilder bmm("aten::bmm");
  bmm.tensor(Buffer::f32({2, 3, 4})).tensor(Buffer::f32({4, 5}));
  expect_matmul_rejected(bmm, "3-D");
  CallBuilder batch("aten::bmm");
  batch.tensor(Buffer::f32({2, 3, 4})).tensor(Buffer::f32({3, 4, 5}));
  expect_matmul_rejected(batch, "batch");
  CallBuilder bad("aten::baddbmm");
  bad.tensor(Buffer::f32({3, 3})).tensor(Buffer::f32({1, 2, 4})).tensor(Buffer::f32({1, 4, 5}));
  bad.i(1).i(1);
  expect_matmul_rejected(bad, "self");
}

}  // namespace
}  // namespace tir::kernels::testing
