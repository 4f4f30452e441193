// Dtype conversions, tensor creation, graph assertions and embedding: dtypes as torch
// infers them, values, views, and rejected arguments.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

// Element i of any supported dtype as double.
double value_at(const Buffer& b, int64_t i) {
  switch (b.tensor().dtype) {
    case DType::kBool:
      return b.at<bool>(i) ? 1 : 0;
    case DType::kInt32:
      return b.at<int32_t>(i);
    case DType::kInt64:
      return static_cast<double>(b.at<int64_t>(i));
    case DType::kFloat32:
      return b.at<float>(i);
    case DType::kFloat64:
      return b.at<double>(i);
    default:
      return NAN;
  }
}

TEST(Convert, AllDtypePairs) {
  // Values exact in every dtype except where conversion truncates (float -> int) or
  // tests truth (-> bool).
  const std::vector<double> values = {0, 1, -2.75, 3.5, 100};
  const DType dtypes[] = {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32,
                          DType::kFloat64};
  for (DType from : dtypes) {
    Buffer x(from, {5});
    for (int i = 0; i < 5; ++i) {
      const double v = values[i];
      if (from == DType::kBool) x.span<bool>()[i] = v != 0;
      if (from == DType::kInt32) x.span<int32_t>()[i] = static_cast<int32_t>(v);
      if (from == DType::kInt64) x.span<int64_t>()[i] = static_cast<int64_t>(v);
      if (from == DType::kFloat32) x.span<float>()[i] = static_cast<float>(v);
      if (from == DType::kFloat64) x.span<double>()[i] = v;
    }
    for (DType to : dtypes) {
      CallBuilder cb("aten::_to_copy");
      cb.tensor(x).dtype(to).none().none().none().b(false).none();
      RunResult r = run_kernel(cb);
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      EXPECT_FALSE(r.aliased(0));
      ASSERT_EQ(r.outputs[0].tensor().dtype, to);
      for (int i = 0; i < 5; ++i) {
        const double src = value_at(x, i);
        const double want = to == DType::kBool   ? (src != 0)
                            : dtype_is_float(to) ? src
                                                 : std::trunc(src);
        EXPECT_EQ(value_at(r.outputs[0], i), want)
            << dtype_name(from) << " -> " << dtype_name(to) << " of " << src;
      }
    }
  }
}

TEST(Convert, ViewsWhenTheDtypeMatches) {
  Buffer x = Buffer::f32({2, 2}, {1, 2, 3, 4});
  CallBuilder same("aten::to.dtype");
  same.tensor(x).dtype(DType::kFloat32).b(false).b(false).none();
  RunResult r = run_kernel(same);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(r.aliased(0));
  EXPECT_EQ(r.outputs[0].at<float>(3), 4.f);
  CallBuilder copy("aten::to.dtype");  // copy=True never aliases
  copy.tensor(x).dtype(DType::kFloat32).b(false).b(true).none();
  EXPECT_FALSE(run_kernel(copy).aliased(0));
  CallBuilder layout("aten::to.dtype_layout");
  layout.tensor(x).dtype(DType::kInt64).none().none().none().b(false).b(false).none();
  r = run_kernel(layout);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].at<int64_t>(2), 3);
  CallBuilder type_as("aten::type_as");
  type_as.tensor(x).tensor(Buffer::i64({1}));
  r = run_kernel(type_as);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  CallBuilder lift("aten::lift_fresh_copy");
  lift.tensor(x);
  r = run_kernel(lift);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_FALSE(r.aliased(0));
  EXPECT_EQ(r.outputs[0].at<float>(1), 2.f);
}

TEST(Fill, DtypesAsTorchInfersThem) {
  struct Case {
    CallBuilder cb;  // moved in: a copy would point its int lists at the original's
    DType want;
    std::vector<int64_t> shape;
    double value;
  };
  Buffer xi = Buffer::i64({2, 3});
  auto opts = [](CallBuilder& cb) { cb.none().none().none(); };  // layout, device, pin
  std::deque<Case> cases;                                        // never relocates its elements
  {
    CallBuilder cb("aten::full");
    cb.ints({2, 2}).i(7).none();
    opts(cb);
    cases.push_back({std::move(cb), DType::kInt64, {2, 2}, 7});
  }
  {
    CallBuilder cb("aten::full");
    cb.ints({3}).b(true).none();
    opts(cb);
    cases.push_back({std::move(cb), DType::kBool, {3}, 1});
  }
  {
    CallBuilder cb("aten::full");
    cb.ints({1, 2}).f(-0.5).none();
    opts(cb);
    cases.push_back({std::move(cb), DType::kFloat32, {1, 2}, -0.5});
  }
  {
    CallBuilder cb("aten::full");
    cb.ints({2}).i(3).dtype(DType::kFloat64);
    opts(cb);
    cases.push_back({std::move(cb), DType::kFloat64, {2}, 3});
  }
  {
    CallBuilder cb("aten::scalar_tensor");
    cb.i(3).none();
    opts(cb);
    cases.push_back({std::move(cb), DType::kFloat32, {}, 3});
  }
  {
    // dtype is the second argument of scalar_tensor (the first keyword one).
    CallBuilder cb("aten::scalar_tensor");
    cb.f(-0.5).dtype(DType::kFloat64);
    opts(cb);
    cases.push_back({std::move(cb), DType::kFloat64, {}, -0.5});
  }
  {
    CallBuilder cb("aten::zeros");
    cb.ints({2, 0}).none();
    opts(cb);
    cases.push_back({std::move(cb), DType::kFloat32, {2, 0}, 0});
  }
  {
    CallBuilder cb("aten::ones");
    cb.ints({4}).dtype(DType::kInt64);
    opts(cb);
    cases.push_back({std::move(cb), DType::kInt64, {4}, 1});
  }
  {
    CallBuilder cb("aten::full_like");
    cb.tensor(xi).f(2.5).none();
    opts(cb);
    cb.none();
    cases.push_back({std::move(cb), DType::kInt64, {2, 3}, 2});  // truncated to self's dtype
  }
  {
    CallBuilder cb("aten::zeros_like");
    cb.tensor(xi).dtype(DType::kBool);
    opts(cb);
    cb.none();
    cases.push_back({std::move(cb), DType::kBool, {2, 3}, 0});
  }
  {
    CallBuilder cb("aten::ones_like");
    cb.tensor(xi).none();
    opts(cb);
    cb.none();
    cases.push_back({std::move(cb), DType::kInt64, {2, 3}, 1});
  }
  {
    CallBuilder cb("aten::new_ones");
    cb.tensor(xi).ints({5}).none();
    opts(cb);
    cases.push_back({std::move(cb), DType::kInt64, {5}, 1});
  }
  {
    CallBuilder cb("aten::new_zeros");
    cb.tensor(xi).ints({1, 2}).dtype(DType::kFloat32);
    opts(cb);
    cases.push_back({std::move(cb), DType::kFloat32, {1, 2}, 0});
  }
  for (const Case& c : cases) {
    RunResult r = run_kernel(c.cb);
    ASSERT_TRUE(r.status.ok()) << c.cb.op() << ": " << r.status.message();
    EXPECT_EQ(r.outputs[0].tensor().dtype, c.want) << c.cb.op();
    EXPECT_EQ(r.outputs[0].shape(), c.shape) << c.cb.op();
    for (int64_t i = 0; i < r.outputs[0].tensor().numel(); ++i) {
      EXPECT_EQ(value_at(r.outputs[0], i), c.value) << c.cb.op();
    }
  }
  CallBuilder neg("aten::zeros");
  neg.ints({2, -1}).none();
  opts(neg);
  RunResult r = run_kernel(neg);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("size"), std::string::npos);
}

TEST(Assert, ScalarConditionAndNoOps) {
  CallBuilder ok("aten::_assert_scalar");
  ok.i(1).str("u0 >= 0");
  EXPECT_TRUE(run_kernel(ok, {KernelImpl::kReference, 0}).status.ok());
  CallBuilder bad("aten::_assert_scalar");
  bad.i(0).str("Runtime assertion failed for expression u0 >= 0");
  RunResult r = run_kernel(bad, {KernelImpl::kReference, 0});
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("u0 >= 0"), std::string::npos);
  EXPECT_NE(r.status.message().find("aten::_assert_scalar"), std::string::npos);
  CallBuilder meta("aten::_assert_tensor_metadata");
  meta.tensor(Buffer::f32({2})).ints({2}).none().dtype(DType::kFloat32).none().none();
  EXPECT_TRUE(run_kernel(meta, {KernelImpl::kReference, 0}).status.ok());
  CallBuilder range("aten::sym_constrain_range_for_size");
  range.i(5).none().none();
  EXPECT_TRUE(run_kernel(range, {KernelImpl::kReference, 0}).status.ok());
}

TEST(Embedding, GathersRows) {
  std::mt19937 rng(test_seed());
  Buffer w = Buffer::random(rng, {5, 3});
  Buffer idx = Buffer::i64({2, 2}, {1, 4, 0, 4});
  CallBuilder cb("aten::embedding");
  cb.tensor(w).tensor(idx).i(-1).b(false).b(false);
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 2, 3}));
  for (int i = 0; i < 4; ++i) {
    for (int d = 0; d < 3; ++d) {
      EXPECT_EQ(r.outputs[0].at<float>(i * 3 + d), w.at<float>(idx.at<int64_t>(i) * 3 + d));
    }
  }
}

TEST(Embedding, Rejects) {
  CallBuilder oob("aten::embedding");
  oob.tensor(Buffer::f32({5, 3})).tensor(Buffer::i64({2}, {1, 5})).i(-1).b(false).b(false);
  RunResult r = run_kernel(oob);  // indices are data: caught in run
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("out of range"), std::string::npos);
  CallBuilder rank("aten::embedding");
  rank.tensor(Buffer::f32({5})).tensor(Buffer::i64({2})).i(-1).b(false).b(false);
  r = run_kernel(rank);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("weight"), std::string::npos);
  CallBuilder fidx("aten::embedding");
  fidx.tensor(Buffer::f32({5, 3})).tensor(Buffer::f32({2})).i(-1).b(false).b(false);
  r = run_kernel(fidx);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("indices"), std::string::npos);
}

}  // namespace
}  // namespace tir::kernels::testing
