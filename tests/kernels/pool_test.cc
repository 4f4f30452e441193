// max_pool2d(_with_indices) and adaptive_avg_pool2d: closed-form index checks on the
// reference, optimized vs reference on random geometry (incl. ceil_mode, dilation) and on
// channels-last inputs and outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

CallBuilder pool_call(const std::string& op, Buffer x, std::vector<int64_t> k,
                      std::vector<int64_t> s, std::vector<int64_t> p, std::vector<int64_t> d,
                      bool ceil) {
  CallBuilder cb(op);
  cb.tensor(x).ints(std::move(k)).ints(std::move(s)).ints(std::move(p)).ints(std::move(d)).b(ceil);
  return cb;
}

TEST(MaxPool, IndicesOfIncreasingRamp) {
  // x[h, w] = h*W + w increases, so each window's max is its last in-bounds tap and the
  // index equals the value.
  Buffer x = Buffer::f32({1, 1, 5, 5});
  for (int i = 0; i < 25; ++i) x.span<float>()[i] = static_cast<float>(i);
  RunResult r = run_kernel(pool_call("aten::max_pool2d_with_indices", x, {2}, {}, {1}, {1}, false),
                           {KernelImpl::kReference, 2});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{1, 1, 3, 3}));  // stride = kernel
  EXPECT_EQ(r.outputs[1].tensor().dtype, DType::kInt64);
  for (int oh = 0; oh < 3; ++oh) {
    for (int ow = 0; ow < 3; ++ow) {
      const int64_t h = std::min(2 * oh, 4), w = std::min(2 * ow, 4);
      EXPECT_EQ(r.outputs[1].at<int64_t>(oh * 3 + ow), h * 5 + w);
      EXPECT_FLOAT_EQ(r.outputs[0].at<float>(oh * 3 + ow), static_cast<float>(h * 5 + w));
    }
  }
}

TEST(MaxPool, AllMinusInfPicksFirstInBoundsTap) {
  Buffer x = Buffer::f32({1, 3, 3});
  for (float& v : x.span<float>()) v = -std::numeric_limits<float>::infinity();
  RunResult r = run_kernel(
      pool_call("aten::max_pool2d_with_indices", x, {2, 2}, {1, 1}, {1, 1}, {1, 1}, false),
      {KernelImpl::kReference, 2});
  ASSERT_TRUE(r.status.ok());
  ASSERT_EQ(r.outputs[1].shape(), (std::vector<int64_t>{1, 4, 4}));
  const int64_t want[16] = {0, 0, 1, 2, 0, 0, 1, 2, 3, 3, 4, 5, 6, 6, 7, 8};  // torch's answer
  for (int i = 0; i < 16; ++i) EXPECT_EQ(r.outputs[1].at<int64_t>(i), want[i]);
}

TEST(MaxPool, CeilModeShape) {
  // torch: 7x7, k3 s2 p1 ceil -> 4x4; k4 s3 p2 ceil -> 3x3
  RunResult a = run_kernel(pool_call("aten::max_pool2d", Buffer::f32({1, 2, 7, 7}), {3, 3}, {2, 2},
                                     {1, 1}, {1, 1}, true));
  ASSERT_TRUE(a.status.ok());
  EXPECT_EQ(a.outputs[0].shape(), (std::vector<int64_t>{1, 2, 4, 4}));
  RunResult b = run_kernel(pool_call("aten::max_pool2d", Buffer::f32({1, 2, 7, 7}), {4, 4}, {3, 3},
                                     {2, 2}, {1, 1}, true));
  ASSERT_TRUE(b.status.ok());
  EXPECT_EQ(b.outputs[0].shape(), (std::vector<int64_t>{1, 2, 3, 3}));
}

TEST(MaxPool, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 30; ++c) {
    const int64_t k0 = pick(rng, 1, 4), k1 = pick(rng, 1, 4);
    const int64_t d0 = pick(rng, 1, 2), d1 = pick(rng, 1, 2);
    const int64_t h = (k0 - 1) * d0 + 1 + pick(rng, 0, 9), w = (k1 - 1) * d1 + 1 + pick(rng, 0, 9);
    std::vector<int64_t> xs = {pick(rng, 1, 2), pick(rng, 1, 40), h, w};
    if (c % 6 == 5) xs.erase(xs.begin());
    std::vector<int64_t> s = c % 4 == 0 ? std::vector<int64_t>{}
                                        : std::vector<int64_t>{pick(rng, 1, 3), pick(rng, 1, 3)};
    const bool ceil = c % 3 == 0;
    CallBuilder cb = pool_call("aten::max_pool2d", Buffer::random(rng, xs), {k0, k1}, s,
                               {pick(rng, 0, k0 / 2), pick(rng, 0, k1 / 2)}, {d0, d1}, ceil);
    SCOPED_TRACE("case " + std::to_string(c));
    expect_opt_matches_ref(cb, 0, 0);
  }
}

TEST(MaxPool, Rejects) {
  RunResult r = run_kernel(pool_call("aten::max_pool2d", Buffer::f32({1, 1, 5, 5}), {3, 3}, {1, 1},
                                     {2, 2}, {1, 1}, false));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("padding"), std::string::npos);
  r = run_kernel(pool_call("aten::max_pool2d", Buffer::f32({1, 1, 2, 2}), {3, 3}, {1, 1}, {0, 0},
                           {1, 1}, false));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  r = run_kernel(
      pool_call("aten::max_pool2d", Buffer::f32({5, 5}), {3, 3}, {1, 1}, {0, 0}, {1, 1}, false));
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("self"), std::string::npos);
}

TEST(AdaptiveAvgPool, ClosedForm) {
  // 1x1 output = mean of the plane; 3 -> 2 windows are [0,2) and [1,3).
  Buffer x = Buffer::f32({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  CallBuilder g("aten::adaptive_avg_pool2d");
  g.tensor(x).ints({1, 1});
  RunResult r = run_kernel(g);
  ASSERT_TRUE(r.status.ok());
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(0), 4.f);
  CallBuilder h("aten::adaptive_avg_pool2d");
  h.tensor(x).ints({2, 2});
  r = run_kernel(h);
  ASSERT_TRUE(r.status.ok());
  const float want[4] = {2, 3, 5, 6};
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i), want[i]);
}

TEST(AdaptiveAvgPool, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 24; ++c) {
    std::vector<int64_t> xs = {pick(rng, 1, 2), pick(rng, 1, 8), pick(rng, 1, 15),
                               pick(rng, 1, 15)};
    if (c % 5 == 4) xs.erase(xs.begin());
    CallBuilder cb("aten::adaptive_avg_pool2d");
    cb.tensor(Buffer::random(rng, xs));
    if (c % 2 == 0) {
      cb.ints({1, 1});
    } else {
      cb.ints({pick(rng, 1, 9), pick(rng, 1, 9)});
    }
    expect_opt_matches_ref(cb, 1e-5, 1e-6);
  }
}

// A channels-last input (runtime/passes/layout.h), the output plain or asked channels-last: the
// optimized kernel equals the reference on the plain copy, global pools (the vectorised
// per-channel path) and other output sizes (strided loops) alike.
TEST(AdaptiveAvgPool, ChannelsLastMatchesReference) {
  std::mt19937 rng(test_seed());
  struct Case {
    std::vector<int64_t> x, out;
  };
  const Case cases[] = {
      {{1, 72, 28, 28}, {1, 1}},  // MobileNetV3's first squeeze-excitation
      {{2, 960, 7, 7}, {1, 1}},  {{2, 37, 5, 7}, {1, 1}}, {{2, 130, 9, 9}, {1, 1}},
      {{2, 19, 1, 1}, {1, 1}},   {{1, 3, 1, 2}, {1, 1}},  {{2, 21, 9, 7}, {2, 3}},
      {{1, 5, 6, 6}, {4, 4}},    {{2, 17, 1, 1}, {2, 2}}, {{2, 33, 8, 8}, {8, 8}},
  };
  for (const Case& c : cases) {
    const Buffer x = Buffer::random(rng, c.x);
    CallBuilder plain("aten::adaptive_avg_pool2d");
    plain.tensor(x).ints(c.out);
    const RunResult want = run_kernel(plain);
    ASSERT_TRUE(want.status.ok()) << want.status.message();
    for (bool in_cl : {true, false}) {
      for (bool out_cl : {false, true}) {
        SCOPED_TRACE(shape_str(c.x) + " -> " + shape_str(c.out) + (in_cl ? " cl" : " plain") +
                     (out_cl ? " -> cl" : " -> plain"));
        CallBuilder cb("aten::adaptive_avg_pool2d");
        cb.tensor(in_cl ? x.channels_last() : x).ints(c.out);
        RunOptions o;
        o.impl = KernelImpl::kOptimized;
        o.channels_last = out_cl;
        o.repeat_runs = 2;
        const RunResult got = run_kernel(cb, o);
        ASSERT_TRUE(got.status.ok()) << got.status.message();
        EXPECT_TRUE(all_close(got.outputs[0], want.outputs[0], 1e-5, 1e-6));
        EXPECT_TRUE(out_cl ? got.layouts[0].is_channels_last() : got.layouts[0].is_contiguous());
      }
    }
  }
}

// The reference reads plain inputs only (the layout pass never gives it another).
TEST(AdaptiveAvgPool, ReferenceRejectsChannelsLast) {
  CallBuilder cb("aten::adaptive_avg_pool2d");
  cb.tensor(Buffer::f32({1, 3, 4, 4}).channels_last()).ints({1, 1});
  EXPECT_EQ(run_kernel(cb).status.code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tir::kernels::testing
