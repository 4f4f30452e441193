// Comparisons, bitwise/logical ops, where, masked_fill and triu/tril: closed forms over
// broadcast shapes for float32, int64 and bool, torch's type promotion, rejected args.
#include <gtest/gtest.h>

#include <functional>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

Buffer bools(std::vector<int64_t> shape, const std::vector<int>& v) {
  Buffer b(DType::kBool, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) b.span<bool>()[i] = v[i] != 0;
  return b;
}

Buffer random_ints(std::mt19937& rng, std::vector<int64_t> shape, int64_t lo, int64_t hi) {
  Buffer b = Buffer::i64(std::move(shape));
  std::uniform_int_distribution<int64_t> d(lo, hi);
  for (int64_t& x : b.span<int64_t>()) x = d(rng);
  return b;
}

struct CompareCase {
  const char* name;
  std::function<bool(double, double)> f;
};
const CompareCase kCompares[] = {
    {"eq", std::equal_to<double>()}, {"ne", std::not_equal_to<double>()},
    {"lt", std::less<double>()},     {"le", std::less_equal<double>()},
    {"gt", std::greater<double>()},  {"ge", std::greater_equal<double>()},
};

TEST(Compare, TensorBroadcastFloatAndInt) {
  std::mt19937 rng(test_seed());
  for (const CompareCase& c : kCompares) {
    const std::string op = std::string("aten::") + c.name + ".Tensor";
    for (bool ints : {false, true}) {
      // a [3, 1] vs b [4], small ints so equality happens.
      Buffer a = random_ints(rng, {3, 1}, -2, 2), b = random_ints(rng, {4}, -2, 2);
      if (!ints) {
        Buffer af = Buffer::f32({3, 1}), bf = Buffer::f32({4});
        for (int i = 0; i < 3; ++i) af.span<float>()[i] = static_cast<float>(a.at<int64_t>(i));
        for (int i = 0; i < 4; ++i) bf.span<float>()[i] = static_cast<float>(b.at<int64_t>(i));
        a = af;
        b = bf;
      }
      CallBuilder cb(op);
      cb.tensor(a).tensor(b);
      RunResult r = run_kernel(cb);
      ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.message();
      ASSERT_EQ(r.outputs[0].tensor().dtype, DType::kBool);
      ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{3, 4}));
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 4; ++j) {
          const double x = ints ? a.at<int64_t>(i) : a.at<float>(i);
          const double y = ints ? b.at<int64_t>(j) : b.at<float>(j);
          EXPECT_EQ(r.outputs[0].at<bool>(i * 4 + j), c.f(x, y)) << op << " " << x << " " << y;
        }
      }
    }
  }
}

TEST(Compare, ScalarsPromote) {
  // int64 tensor vs float scalar 1.5 compares in float; a Tensor arg may be a Python int.
  Buffer x = Buffer::i64({3}, {1, 2, 3});
  for (const CompareCase& c : kCompares) {
    for (const char* overload : {".Scalar", ".Tensor"}) {
      const std::string op = std::string("aten::") + c.name + overload;
      CallBuilder cb(op);
      cb.tensor(x).f(1.5);
      RunResult r = run_kernel(cb);
      ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.message();
      for (int i = 0; i < 3; ++i) EXPECT_EQ(r.outputs[0].at<bool>(i), c.f(i + 1, 1.5)) << op;
      CallBuilder zero_d(op);  // float32 tensor vs 0-d int64 tensor
      zero_d.tensor(Buffer::f32({2}, {1.f, 2.5f})).tensor(Buffer::i64({}, {2}));
      r = run_kernel(zero_d);
      ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.message();
      EXPECT_EQ(r.outputs[0].at<bool>(1), c.f(2.5, 2)) << op;
    }
  }
}

TEST(Bitwise, BoolAndInt64) {
  Buffer a = bools({4}, {0, 0, 1, 1}), b = bools({4}, {0, 1, 0, 1});
  for (const char* op : {"aten::bitwise_and.Tensor", "aten::__and__.Tensor",
                         "aten::bitwise_or.Tensor", "aten::__or__.Tensor"}) {
    const bool is_and = std::string(op).find("and") != std::string::npos;
    CallBuilder cb(op);
    cb.tensor(a).tensor(b);
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.message();
    EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kBool);
    for (int i = 0; i < 4; ++i) {
      const bool x = a.at<bool>(i), y = b.at<bool>(i);
      EXPECT_EQ(r.outputs[0].at<bool>(i), is_and ? (x && y) : (x || y)) << op;
    }
    CallBuilder ints(op);
    ints.tensor(Buffer::i64({2}, {12, -1})).tensor(Buffer::i64({1}, {10}));
    r = run_kernel(ints);
    ASSERT_TRUE(r.status.ok()) << op << ": " << r.status.message();
    EXPECT_EQ(r.outputs[0].at<int64_t>(0), is_and ? (12 & 10) : (12 | 10));
    EXPECT_EQ(r.outputs[0].at<int64_t>(1), is_and ? (-1 & 10) : (-1 | 10));
  }
  CallBuilder bnot("aten::bitwise_not");
  bnot.tensor(Buffer::i64({3}, {0, 5, -6}));
  RunResult r = run_kernel(bnot);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].at<int64_t>(1), ~int64_t{5});
  CallBuilder bnot_b("aten::bitwise_not");
  bnot_b.tensor(bools({2}, {0, 1}));
  r = run_kernel(bnot_b);
  EXPECT_TRUE(r.outputs[0].at<bool>(0));
  EXPECT_FALSE(r.outputs[0].at<bool>(1));
  CallBuilder lnot("aten::logical_not");
  lnot.tensor(Buffer::f32({3}, {0, 2, -0.f}));
  r = run_kernel(lnot);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kBool);
  EXPECT_TRUE(r.outputs[0].at<bool>(0));
  EXPECT_FALSE(r.outputs[0].at<bool>(1));
  EXPECT_TRUE(r.outputs[0].at<bool>(2));
}

TEST(Where, BroadcastAndPromotion) {
  // cond [2, 1, 3], self [4, 1], other a Python float: float32 [2, 4, 3].
  std::mt19937 rng(test_seed());
  Buffer cond(DType::kBool, {2, 1, 3});
  for (bool& c : cond.span<bool>()) c = std::uniform_int_distribution<int>(0, 1)(rng) != 0;
  Buffer x = Buffer::random(rng, {4, 1});
  CallBuilder cb("aten::where.self");
  cb.tensor(cond).tensor(x).f(-7.5);
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 4, 3}));
  ASSERT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      for (int k = 0; k < 3; ++k) {
        const float want = cond.at<bool>(i * 3 + k) ? x.at<float>(j) : -7.5f;
        EXPECT_EQ(r.outputs[0].at<float>((i * 4 + j) * 3 + k), want);
      }
    }
  }
  // int64 tensor with a 0-d float64 tensor promotes to float64 (torch.result_type).
  Buffer f64(DType::kFloat64, {});
  f64.span<double>()[0] = 0.5;
  CallBuilder promo("aten::where.self");
  promo.tensor(bools({2}, {1, 0})).tensor(Buffer::i64({2}, {3, 4})).tensor(f64);
  r = run_kernel(promo);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kFloat64);
  EXPECT_EQ(r.outputs[0].span<double>()[0], 3.0);
  EXPECT_EQ(r.outputs[0].span<double>()[1], 0.5);
  CallBuilder ints("aten::where.self");  // int64 with a Python int stays int64
  ints.tensor(bools({2}, {1, 0})).tensor(Buffer::i64({2}, {3, 4})).i(-1);
  r = run_kernel(ints);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].at<int64_t>(1), -1);
}

TEST(MaskedFill, ScalarAndTensorValue) {
  // self [3, 1] with mask [2, 1, 4] broadcasts to [2, 3, 4], as torch's out-of-place op.
  std::mt19937 rng(test_seed());
  Buffer x = Buffer::random(rng, {3, 1});
  Buffer mask(DType::kBool, {2, 1, 4});
  for (bool& m : mask.span<bool>()) m = std::uniform_int_distribution<int>(0, 1)(rng) != 0;
  Buffer f64(DType::kFloat64, {});
  f64.span<double>()[0] = -1e9;
  CallBuilder scalar("aten::masked_fill.Scalar");
  scalar.tensor(x).tensor(mask).f(-1e9);
  CallBuilder tensor("aten::masked_fill.Tensor");
  tensor.tensor(x).tensor(mask).tensor(f64);
  for (const CallBuilder* cb : {&scalar, &tensor}) {
    RunResult r = run_kernel(*cb);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    ASSERT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 3, 4}));
    ASSERT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int k = 0; k < 4; ++k) {
          const float want = mask.at<bool>(i * 4 + k) ? -1e9f : x.at<float>(j);
          EXPECT_EQ(r.outputs[0].at<float>((i * 3 + j) * 4 + k), want);
        }
      }
    }
  }
  CallBuilder ints("aten::masked_fill.Scalar");  // int64 self: the value is truncated
  ints.tensor(Buffer::i64({2}, {5, 6})).tensor(bools({2}, {0, 1})).f(1.5);
  RunResult r = run_kernel(ints);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].at<int64_t>(0), 5);
  EXPECT_EQ(r.outputs[0].at<int64_t>(1), 1);
}

TEST(Triangle, TriuTrilAllDtypes) {
  for (const char* op : {"aten::triu", "aten::tril"}) {
    const bool upper = std::string(op) == "aten::triu";
    for (int64_t diag : {-1, 0, 2}) {
      for (DType dt : {DType::kFloat32, DType::kInt64, DType::kBool}) {
        Buffer x(dt, {2, 3, 4});  // every element nonzero: 1 + its index (true for bool)
        for (int64_t i = 0; i < 24; ++i) {
          if (dt == DType::kFloat32) x.span<float>()[i] = static_cast<float>(i + 1);
          if (dt == DType::kInt64) x.span<int64_t>()[i] = i + 1;
          if (dt == DType::kBool) x.span<bool>()[i] = true;
        }
        CallBuilder cb(op);
        cb.tensor(x).i(diag);
        RunResult r = run_kernel(cb);
        ASSERT_TRUE(r.status.ok()) << r.status.message();
        ASSERT_EQ(r.outputs[0].tensor().dtype, dt);
        for (int64_t i = 0; i < 24; ++i) {
          const int64_t row = (i / 4) % 3, col = i % 4;
          const bool keep = upper ? col - row >= diag : col - row <= diag;
          double got = 0;
          if (dt == DType::kFloat32) got = r.outputs[0].at<float>(i);
          if (dt == DType::kInt64) got = static_cast<double>(r.outputs[0].at<int64_t>(i));
          if (dt == DType::kBool) got = r.outputs[0].at<bool>(i) ? static_cast<double>(i + 1) : 0;
          EXPECT_EQ(got, keep ? static_cast<double>(i + 1) : 0.0) << op << " diag " << diag;
        }
      }
    }
  }
}

TEST(Logic, Rejects) {
  CallBuilder where("aten::where.self");  // condition must be bool
  where.tensor(Buffer::f32({2})).tensor(Buffer::f32({2})).tensor(Buffer::f32({2}));
  RunResult r = run_kernel(where);
  EXPECT_FALSE(r.status.ok());
  CallBuilder where_i("aten::where.self");
  where_i.tensor(Buffer::i64({2})).tensor(Buffer::f32({2})).tensor(Buffer::f32({2}));
  EXPECT_FALSE(run_kernel(where_i).status.ok());
  CallBuilder mf("aten::masked_fill.Scalar");
  mf.tensor(Buffer::f32({2})).tensor(Buffer::f32({2})).f(0);
  r = run_kernel(mf);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("mask"), std::string::npos);
  CallBuilder mf_t("aten::masked_fill.Tensor");
  mf_t.tensor(Buffer::f32({2})).tensor(bools({2}, {0, 1})).tensor(Buffer::f32({1}));
  r = run_kernel(mf_t);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("value"), std::string::npos);
  CallBuilder band("aten::bitwise_and.Tensor");
  band.tensor(Buffer::i64({2})).tensor(Buffer::f32({2}));
  EXPECT_EQ(run_kernel(band).status.code(), StatusCode::kInvalidArgument);
  CallBuilder triu("aten::triu");
  triu.tensor(Buffer::f32({4})).i(0);
  r = run_kernel(triu);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("aten::triu"), std::string::npos);
  CallBuilder eq("aten::eq.Tensor");
  eq.tensor(Buffer::f32({2, 3})).tensor(Buffer::f32({4}));
  r = run_kernel(eq);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("broadcast"), std::string::npos);
}

}  // namespace
}  // namespace tir::kernels::testing
