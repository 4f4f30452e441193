// sum.dim_IntList, amax and cumsum: dtypes as torch returns them, closed forms, NaN,
// optimized vs reference; plus the registry invariant that every op has a reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

TEST(Sum, DtypesAndClosedForm) {
  // x[i, j] = 3*i + j over [2, 3]: row sums 3, 12; column sums 3, 5, 7.
  Buffer xf = Buffer::f32({2, 3}, {0, 1, 2, 3, 4, 5});
  Buffer xi = Buffer::i64({2, 3}, {0, 1, 2, 3, 4, 5});
  Buffer xb(DType::kBool, {2, 3});
  for (int i = 0; i < 6; ++i) xb.span<bool>()[i] = i % 2 == 1;
  CallBuilder rows("aten::sum.dim_IntList");
  rows.tensor(xf).ints({-1}).b(false).none();
  RunResult r = run_kernel(rows);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2}));
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(1), 12.f);
  CallBuilder cols("aten::sum.dim_IntList");
  cols.tensor(xi).ints({0}).b(true).none();
  r = run_kernel(cols);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(r.outputs[0].at<int64_t>(2), 7);
  CallBuilder count("aten::sum.dim_IntList");  // bools count into int64
  count.tensor(xb).none().b(false).none();
  r = run_kernel(count);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{}));
  EXPECT_EQ(r.outputs[0].at<int64_t>(0), 3);
  CallBuilder as_float("aten::sum.dim_IntList");  // dtype= converts first
  as_float.tensor(xi).ints({}).b(false).dtype(DType::kFloat32);
  r = run_kernel(as_float);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(0), 15.f);
}

TEST(Sum, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 30; ++c) {
    const int rank = std::uniform_int_distribution<int>(1, 4)(rng);
    std::vector<int64_t> xs, dims;
    for (int d = 0; d < rank; ++d) xs.push_back(std::uniform_int_distribution<int64_t>(1, 9)(rng));
    for (int d = 0; d < rank; ++d) {
      if (std::uniform_int_distribution<int>(0, 1)(rng)) dims.push_back(d - (c % 2) * rank);
    }
    CallBuilder cb("aten::sum.dim_IntList");
    cb.tensor(Buffer::random(rng, xs)).ints(dims).b(c % 3 == 0).none();
    SCOPED_TRACE(shape_str(xs) + " dims " + shape_str(dims));
    expect_opt_matches_ref(cb, 1e-5, 1e-5);
  }
}

TEST(Amax, ClosedFormNanAndInt) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CallBuilder f("aten::amax");
  f.tensor(Buffer::f32({2, 3}, {1, 5, -2, 0, nan, 3})).ints({1}).b(true);
  RunResult r = run_kernel(f);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(r.outputs[0].at<float>(0), 5.f);
  EXPECT_TRUE(std::isnan(r.outputs[0].at<float>(1)));
  CallBuilder i("aten::amax");
  i.tensor(Buffer::i64({2, 2}, {-7, 4, 9, -1})).ints({}).b(false);
  r = run_kernel(i);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].at<int64_t>(0), 9);
  CallBuilder empty("aten::amax");
  empty.tensor(Buffer::f32({2, 0})).ints({1}).b(false);
  r = run_kernel(empty);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("aten::amax"), std::string::npos);
}

TEST(Cumsum, DtypesAndClosedForm) {
  std::mt19937 rng(test_seed());
  Buffer x = Buffer::random(rng, {2, 3, 4});
  CallBuilder mid("aten::cumsum");
  mid.tensor(x).i(1).none();
  RunResult r = run_kernel(mid);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 4; ++i) {
      double acc = 0;
      for (int k = 0; k < 3; ++k) {
        acc += x.at<float>((n * 3 + k) * 4 + i);
        EXPECT_NEAR(r.outputs[0].at<float>((n * 3 + k) * 4 + i), acc, 1e-6);
      }
    }
  }
  Buffer b(DType::kBool, {4});
  for (int k = 0; k < 4; ++k) b.span<bool>()[k] = k != 1;
  CallBuilder bools("aten::cumsum");  // bool cumsum counts in int64: 1, 1, 2, 3
  bools.tensor(b).i(0).none();
  r = run_kernel(bools);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r.outputs[0].at<int64_t>(3), 3);
  CallBuilder to_f("aten::cumsum");
  to_f.tensor(Buffer::i64({3}, {1, 2, 3})).i(-1).dtype(DType::kFloat32);
  r = run_kernel(to_f);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(2), 6.f);
  CallBuilder bad("aten::cumsum");
  bad.tensor(x).i(3).none();
  EXPECT_EQ(run_kernel(bad).status.code(), StatusCode::kInvalidArgument);
}

TEST(Registry, EveryRegisteredOpHasAReferenceKernel) {
  const KernelRegistry& reg = KernelRegistry::global();
  for (const KernelEntry& e : reg.entries()) {
    if (e.impl != KernelImpl::kOptimized) continue;
    // The oracle (a CPU reference kernel, for CUDA kernels too) for the same dtype, or one
    // that takes any dtype.
    const DeviceType cpu = DeviceType::kCpu;
    const KernelEntry* ref = reg.find_exact(e.op, cpu, e.dtype, KernelImpl::kReference);
    if (!ref) ref = reg.find_exact(e.op, cpu, DType::kUndefined, KernelImpl::kReference);
    EXPECT_NE(ref, nullptr) << e.op << " " << dtype_name(e.dtype);
  }
}

}  // namespace
}  // namespace tir::kernels::testing
