// clamp, any.dim, diff, to.device, unflatten.int and dropout_: closed forms computed in the
// test over random inputs (seed printed), output shapes as torch gives them, rejected args.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

TEST(Misc, ClampWithEitherBoundOptional) {
  std::mt19937 rng(test_seed());
  const Buffer x = Buffer::random(rng, {3, 5}, -4.f, 4.f);
  struct Case {
    bool lo_set, hi_set;
    double lo, hi;
  };
  for (const Case c :
       {Case{true, true, -1, 2}, Case{true, false, 0, 0}, Case{false, true, 0, 1.5}}) {
    CallBuilder cb("aten::clamp");
    cb.tensor(x);
    c.lo_set ? cb.f(c.lo) : cb.none();
    c.hi_set ? cb.f(c.hi) : cb.none();
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    ASSERT_EQ(r.outputs[0].shape(), x.shape());
    for (int64_t i = 0; i < 15; ++i) {
      float want = x.at<float>(i);
      if (c.lo_set) want = std::max(want, static_cast<float>(c.lo));
      if (c.hi_set) want = std::min(want, static_cast<float>(c.hi));
      EXPECT_EQ(r.outputs[0].at<float>(i), want) << i;
    }
  }
}

TEST(Misc, AnyDimOverEachDimWithKeepdim) {
  std::mt19937 rng(test_seed());
  Buffer x(DType::kBool, {2, 3, 4});
  std::bernoulli_distribution d(0.2);
  for (bool& v : x.span<bool>()) v = d(rng);
  for (int dim = 0; dim < 3; ++dim) {
    for (bool keep : {false, true}) {
      CallBuilder cb("aten::any.dim");
      cb.tensor(x).i(dim - 3).b(keep);  // negative dims too
      RunResult r = run_kernel(cb);
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      std::vector<int64_t> shape = {2, 3, 4};
      if (keep)
        shape[dim] = 1;
      else
        shape.erase(shape.begin() + dim);
      ASSERT_EQ(r.outputs[0].shape(), shape);
      const int64_t stride[3] = {12, 4, 1};
      for (int64_t o = 0; o < r.outputs[0].tensor().numel(); ++o) {
        // Index of output element o in the input with the reduced dim at 0.
        int64_t rest[2], k = 0, rem = o;
        std::vector<int64_t> kept;
        for (int e = 0; e < 3; ++e)
          if (e != dim) kept.push_back(e);
        for (int e = 1; e >= 0; --e) {
          rest[e] = rem % shape[keep ? kept[e] : e];
          rem /= shape[keep ? kept[e] : e];
        }
        int64_t base = rest[0] * stride[kept[0]] + rest[1] * stride[kept[1]];
        bool want = false;
        for (k = 0; k < (dim == 0 ? 2 : dim == 1 ? 3 : 4); ++k)
          want = want || x.at<bool>(base + k * stride[dim]);
        EXPECT_EQ(r.outputs[0].at<bool>(o), want) << "dim " << dim << " element " << o;
      }
    }
  }
}

TEST(Misc, DiffWithPrependAndAppend) {
  std::mt19937 rng(test_seed());
  Buffer x = Buffer::i64({2, 4});
  std::uniform_int_distribution<int64_t> d(-50, 50);
  for (int64_t& v : x.span<int64_t>()) v = d(rng);
  const Buffer pre = Buffer::i64({2, 1}, {7, -3});
  CallBuilder cb("aten::diff");
  cb.tensor(x).i(1).i(-1).tensor(pre).none();
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 4}));
  for (int64_t row = 0; row < 2; ++row) {
    std::vector<int64_t> cat = {pre.at<int64_t>(row)};
    for (int64_t j = 0; j < 4; ++j) cat.push_back(x.at<int64_t>(row * 4 + j));
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ(r.outputs[0].at<int64_t>(row * 4 + j), cat[j + 1] - cat[j]);
  }
  CallBuilder along0("aten::diff");
  along0.tensor(x).i(1).i(0).none().none();
  RunResult r0 = run_kernel(along0);
  ASSERT_TRUE(r0.status.ok());
  ASSERT_EQ(r0.outputs[0].shape(), (std::vector<int64_t>{1, 4}));
  for (int64_t j = 0; j < 4; ++j)
    EXPECT_EQ(r0.outputs[0].at<int64_t>(j), x.at<int64_t>(4 + j) - x.at<int64_t>(j));
  CallBuilder n2("aten::diff");
  n2.tensor(x).i(2).i(-1).none().none();
  EXPECT_EQ(run_kernel(n2).status.code(), StatusCode::kUnsupported);
}

TEST(Misc, ToDeviceConvertsOrAliases) {
  const Buffer x = Buffer::i64({3}, {1, 0, -2});
  for (bool same : {false, true}) {
    CallBuilder cb("aten::to.device");
    cb.tensor(x)
        .device("cpu")
        .dtype(same ? DType::kInt64 : DType::kFloat32)
        .b(false)
        .b(false)
        .none();
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.aliased(0), same);
    if (!same)
      for (int64_t i = 0; i < 3; ++i)
        EXPECT_EQ(r.outputs[0].at<float>(i), static_cast<float>(x.at<int64_t>(i)));
  }
}

TEST(Misc, UnflattenAndInPlaceDropoutAreAliases) {
  std::mt19937 rng(test_seed());
  const Buffer x = Buffer::random(rng, {2, 12});
  CallBuilder cb("aten::unflatten.int");
  cb.tensor(x).i(1).ints({3, -1});
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.aliased(0));
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 3, 4}));
  CallBuilder bad("aten::unflatten.int");
  bad.tensor(x).i(1).ints({5, 2});
  RunResult rb = run_kernel(bad);
  ASSERT_FALSE(rb.status.ok());
  EXPECT_NE(rb.status.message().find("sizes"), std::string::npos) << rb.status.message();
  CallBuilder drop("aten::dropout_");
  drop.tensor(x).f(0.1).b(false);
  RunResult rd = run_kernel(drop);
  ASSERT_TRUE(rd.status.ok());
  EXPECT_TRUE(rd.aliased(0));
  CallBuilder train("aten::dropout_");
  train.tensor(x).f(0.1).b(true);
  EXPECT_EQ(run_kernel(train).status.code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace tir::kernels::testing
