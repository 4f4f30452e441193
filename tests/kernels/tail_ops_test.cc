// The last core-ATen inference kernels (issue 15): closed forms and rejected arguments.
// Their agreement with torch is checked on real fixtures (tests/data/fixtures/aten/tail_ops)
// and by the OpInfo conformance sweep.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

void expect_error(const RunResult& r, const std::string& part) {
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find(part), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find("node 'test_node'"), std::string::npos) << r.status.message();
}

TEST(TailOps, BatchNormNoStatsNormalizesPerChannel) {
  // channel 0 holds {0, 2, 4, 6} over N=2, inner=2: mean 3, biased var 5
  CallBuilder cb("aten::_native_batch_norm_legit.no_stats");
  cb.tensor(Buffer::f32({2, 2, 2}, {0, 2, 1, 1, 4, 6, 1, 1})).none().none().b(true).f(0.1).f(0.0);
  RunResult r = run_kernel(cb, {KernelImpl::kReference, 3});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_NEAR(r.outputs[0].at<float>(0), -3 / std::sqrt(5.f), 1e-6);
  EXPECT_NEAR(r.outputs[1].at<float>(0), 3.f, 1e-6);
  EXPECT_NEAR(r.outputs[2].at<float>(0), 1 / std::sqrt(5.f), 1e-6);
  EXPECT_NEAR(r.outputs[1].at<float>(1), 1.f, 1e-6);
}

TEST(TailOps, BatchNormLegitRejectsTrainingModes) {
  CallBuilder no_stats("aten::_native_batch_norm_legit.no_stats");
  no_stats.tensor(Buffer::f32({2, 2, 2})).none().none().b(false).f(0.1).f(1e-5);
  expect_error(run_kernel(no_stats, {KernelImpl::kReference, 3}), "training=False");
  CallBuilder legit("aten::_native_batch_norm_legit");
  legit.tensor(Buffer::f32({2, 2, 2})).none().none();
  legit.tensor(Buffer::f32({2})).tensor(Buffer::f32({2}, {1, 1})).b(true).f(0.1).f(1e-5);
  expect_error(run_kernel(legit, {KernelImpl::kReference, 3}), "training=True");
}

TEST(TailOps, GridSampleIdentityGridReturnsInput) {
  // align_corners: the corners -1 and 1 are the first and last pixel centres
  for (int64_t mode : {0, 1, 2}) {
    CallBuilder cb("aten::grid_sampler_2d");
    cb.tensor(Buffer::f32({1, 1, 2, 2}, {1, 2, 3, 4}))
        .tensor(Buffer::f32({1, 2, 2, 2}, {-1, -1, 1, -1, -1, 1, 1, 1}))
        .i(mode)
        .i(0)
        .b(true);
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << r.status.message() << " mode " << mode;
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.outputs[0].at<float>(i), i + 1.f, 1e-6) << mode;
  }
}

TEST(TailOps, GridSampleRejectsBadModesAndGrids) {
  CallBuilder mode("aten::grid_sampler_2d");
  mode.tensor(Buffer::f32({1, 1, 2, 2})).tensor(Buffer::f32({1, 2, 2, 2})).i(3).i(0).b(false);
  expect_error(run_kernel(mode), "interpolation_mode 3");
  CallBuilder grid("aten::grid_sampler_2d");
  grid.tensor(Buffer::f32({1, 1, 2, 2})).tensor(Buffer::f32({1, 2, 2, 3})).i(0).i(0).b(false);
  expect_error(run_kernel(grid), "[N, Ho, Wo, 2]");
}

TEST(TailOps, Col2imUndoesNonOverlappingIm2col) {
  std::mt19937 rng(test_seed());
  const Buffer x = Buffer::random(rng, {2, 3, 4, 6});
  CallBuilder unfold("aten::im2col");
  unfold.tensor(x).ints({2, 3}).ints({1, 1}).ints({0, 0}).ints({2, 3});
  RunResult cols = run_kernel(unfold);
  ASSERT_TRUE(cols.status.ok()) << cols.status.message();
  EXPECT_EQ(cols.outputs[0].shape(), (std::vector<int64_t>{2, 18, 4}));
  CallBuilder fold("aten::col2im");
  fold.tensor(cols.outputs[0]).ints({4, 6}).ints({2, 3}).ints({1, 1}).ints({0, 0}).ints({2, 3});
  RunResult img = run_kernel(fold);
  ASSERT_TRUE(img.status.ok()) << img.status.message();
  for (int64_t i = 0; i < 2 * 3 * 4 * 6; ++i)
    EXPECT_EQ(img.outputs[0].at<float>(i), x.at<float>(i)) << i;
}

TEST(TailOps, Col2imRejectsWrongBlockCount) {
  CallBuilder cb("aten::col2im");
  cb.tensor(Buffer::f32({1, 4, 5}))
      .ints({4, 4})
      .ints({2, 2})
      .ints({1, 1})
      .ints({0, 0})
      .ints({2, 2});
  expect_error(run_kernel(cb), "must be [N, C * 4, 4]");
}

TEST(TailOps, DistancesOfKnownPoints) {
  // (0, 0), (3, 4), (3, 0): Euclidean 5, 3, 4; Manhattan 7, 3, 4
  const Buffer pts = Buffer::f32({3, 2}, {0, 0, 3, 4, 3, 0});
  for (const auto& [p, want] :
       {std::pair<double, std::vector<float>>{2.0, {5, 3, 4}}, {1.0, {7, 3, 4}}}) {
    CallBuilder pd("aten::_pdist_forward");
    pd.tensor(pts).f(p);
    RunResult r = run_kernel(pd);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    for (int i = 0; i < 3; ++i) EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i), want[i]);
  }
  CallBuilder cd("aten::_cdist_forward");
  cd.tensor(pts).tensor(Buffer::f32({1, 2}, {3, 4})).f(2.0).none();
  RunResult r = run_kernel(cd);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{3, 1}));
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(0), 5.f);
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(2), 4.f);
  CallBuilder bad("aten::_cdist_forward");
  bad.tensor(pts).tensor(Buffer::f32({1, 3})).f(2.0).none();
  expect_error(run_kernel(bad), "same number of columns");
}

CallBuilder bag(std::vector<int64_t> idx, std::vector<int64_t> off, int64_t mode) {
  CallBuilder cb("aten::_embedding_bag");
  const int64_t n = static_cast<int64_t>(idx.size()), b = static_cast<int64_t>(off.size());
  cb.tensor(Buffer::f32({3, 2}, {1, 2, 3, 4, 5, 6}))
      .tensor(Buffer::i64({n}, idx))
      .tensor(Buffer::i64({b}, off))
      .b(false)
      .i(mode)
      .b(false)
      .none()
      .b(false)
      .i(-1);
  return cb;
}

TEST(TailOps, EmbeddingBagModes) {
  // bags {0, 2} and {} and {1}
  const std::vector<std::vector<float>> want = {
      {6, 8, 0, 0, 3, 4}, {3, 4, 0, 0, 3, 4}, {5, 6, 0, 0, 3, 4}};
  for (int64_t mode = 0; mode < 3; ++mode) {
    RunResult r = run_kernel(bag({0, 2, 1}, {0, 2, 2}, mode), {KernelImpl::kReference, 4});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(r.outputs[0].at<float>(i), want[mode][i]);
  }
}

TEST(TailOps, EmbeddingBagChecksIndicesAndOffsets) {
  expect_error(run_kernel(bag({0, 3}, {0, 1}, 0), {KernelImpl::kReference, 4}), "index 3");
  expect_error(run_kernel(bag({0, 1}, {0, 2, 1}, 0), {KernelImpl::kReference, 4}), "offset 2");
}

TEST(TailOps, Pool3dClosedFormsAndBadPadding) {
  std::vector<float> v(8);
  for (int i = 0; i < 8; ++i) v[i] = static_cast<float>(i);
  CallBuilder avg("aten::_adaptive_avg_pool3d");
  avg.tensor(Buffer::f32({1, 2, 2, 2}, v)).ints({1, 1, 1});
  RunResult a = run_kernel(avg);
  ASSERT_TRUE(a.status.ok()) << a.status.message();
  EXPECT_FLOAT_EQ(a.outputs[0].at<float>(0), 3.5f);
  CallBuilder mx("aten::max_pool3d_with_indices");
  mx.tensor(Buffer::f32({1, 2, 2, 2}, v)).ints({2}).ints({}).ints({0}).ints({1}).b(false);
  RunResult m = run_kernel(mx, {KernelImpl::kReference, 2});
  ASSERT_TRUE(m.status.ok()) << m.status.message();
  EXPECT_FLOAT_EQ(m.outputs[0].at<float>(0), 7.f);
  EXPECT_EQ(m.outputs[1].at<int64_t>(0), 7);
  CallBuilder bad("aten::max_pool3d_with_indices");
  bad.tensor(Buffer::f32({1, 2, 2, 2}, v)).ints({2}).ints({}).ints({2}).ints({1}).b(false);
  expect_error(run_kernel(bad, {KernelImpl::kReference, 2}), "at most half");
}

}  // namespace
}  // namespace tir::kernels::testing
