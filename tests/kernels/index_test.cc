// Gathering ops (index.Tensor, index_select, gather) against index mappings computed here
// from numpy's advanced-indexing rules, run-time range errors, and arange sizes/dtypes.
#include <gtest/gtest.h>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

using V = std::vector<int64_t>;

RunResult run_index_ok(const CallBuilder& cb, bool data_at_prepare = false) {
  RunResult r = run_kernel(cb, {KernelImpl::kReference, 1, data_at_prepare});
  EXPECT_TRUE(r.status.ok()) << cb.op() << ": " << r.status.message();
  return r;
}

TEST(Index, IndexSelect) {
  const Buffer idx = Buffer::i64({3}, {2, 0, 2});
  CallBuilder cb("aten::index_select");
  cb.tensor(iota({2, 3, 4})).i(1).tensor(idx);
  RunResult r = run_index_ok(cb);
  ASSERT_EQ(r.outputs[0].shape(), (V{2, 3, 4}));
  for (int64_t a = 0; a < 2; ++a) {
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t c = 0; c < 4; ++c) {
        EXPECT_EQ(r.outputs[0].at<float>((a * 3 + j) * 4 + c),
                  (a * 3 + idx.at<int64_t>(j)) * 4 + c);
      }
    }
  }
  CallBuilder bad("aten::index_select");
  bad.tensor(iota({2, 3})).i(1).tensor(Buffer::i64({1}, {3}));
  RunResult rb = run_kernel(bad);
  ASSERT_FALSE(rb.status.ok());
  EXPECT_NE(rb.status.message().find("aten::index_select"), std::string::npos);
  EXPECT_NE(rb.status.message().find("out of bounds"), std::string::npos);
}

TEST(Index, Gather) {
  std::mt19937 rng(test_seed());
  const V in{3, 4, 5};
  for (int dim = 0; dim < 3; ++dim) {
    V ishape{2, 3, 4};
    Buffer index = Buffer::i64(ishape);
    std::uniform_int_distribution<int64_t> pick(-in[dim], in[dim] - 1);
    for (int64_t& v : index.span<int64_t>()) v = pick(rng);
    CallBuilder cb("aten::gather");
    cb.tensor(iota(in)).i(dim).tensor(index).b(false);
    RunResult r = run_index_ok(cb);
    ASSERT_EQ(r.outputs[0].shape(), ishape);
    for (int64_t a = 0; a < 2; ++a) {
      for (int64_t b = 0; b < 3; ++b) {
        for (int64_t c = 0; c < 4; ++c) {
          const int64_t o = (a * 3 + b) * 4 + c;
          V src{a, b, c};
          const int64_t v = index.at<int64_t>(o);
          src[dim] = v < 0 ? v + in[dim] : v;
          EXPECT_EQ(r.outputs[0].at<float>(o), (src[0] * 4 + src[1]) * 5 + src[2]);
        }
      }
    }
  }
  CallBuilder bad("aten::gather");
  bad.tensor(iota({3, 4})).i(0).tensor(Buffer::i64({2})).b(false);
  EXPECT_FALSE(run_kernel(bad).status.ok());
}

// x[3, 4, 5, 6] indexed with int tensors; want(out index) computed by the test.
TEST(Index, AdvancedIndexing) {
  const V in{3, 4, 5, 6};
  const Buffer x = iota(in);
  const Buffer i0 = Buffer::i64({2, 1}, {0, -1});
  const Buffer i1 = Buffer::i64({3}, {3, 1, 0});
  auto at = [&](V s) { return static_cast<float>(((s[0] * 4 + s[1]) * 5 + s[2]) * 6 + s[3]); };
  auto wrap = [](int64_t v, int64_t n) { return v < 0 ? v + n : v; };
  {  // adjacent: x[:, i0, i1] -> [3, 2, 3, 6]
    CallBuilder cb("aten::index.Tensor");
    cb.tensor(x).tensors({nullptr, &i0, &i1});
    RunResult r = run_index_ok(cb);
    ASSERT_EQ(r.outputs[0].shape(), (V{3, 2, 3, 6}));
    int64_t o = 0;
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t p = 0; p < 2; ++p)
        for (int64_t q = 0; q < 3; ++q)
          for (int64_t d = 0; d < 6; ++d, ++o)
            ASSERT_EQ(r.outputs[0].at<float>(o),
                      at({a, wrap(i0.at<int64_t>(p), 4), i1.at<int64_t>(q), d}));
  }
  {  // not adjacent: x[i0, :, i1] -> [2, 3, 4, 6]
    CallBuilder cb("aten::index.Tensor");
    cb.tensor(x).tensors({&i0, nullptr, &i1});
    RunResult r = run_index_ok(cb);
    ASSERT_EQ(r.outputs[0].shape(), (V{2, 3, 4, 6}));
    int64_t o = 0;
    for (int64_t p = 0; p < 2; ++p)
      for (int64_t q = 0; q < 3; ++q)
        for (int64_t b = 0; b < 4; ++b)
          for (int64_t d = 0; d < 6; ++d, ++o)
            ASSERT_EQ(r.outputs[0].at<float>(o),
                      at({wrap(i0.at<int64_t>(p), 3), b, i1.at<int64_t>(q), d}));
  }
  {  // constant bool mask over dims 0..1: x[mask] -> [count, 5, 6]
    Buffer mask(DType::kBool, {3, 4});
    V picked;
    for (int64_t e = 0; e < 12; ++e) {
      mask.span<uint8_t>()[e] = (e % 5 == 1);
      if (e % 5 == 1) picked.push_back(e);
    }
    CallBuilder cb("aten::index.Tensor");
    cb.tensor(x).tensors({&mask});
    RunResult r = run_index_ok(cb, /*data_at_prepare=*/true);
    ASSERT_EQ(r.outputs[0].shape(), (V{static_cast<int64_t>(picked.size()), 5, 6}));
    for (size_t k = 0; k < picked.size(); ++k)
      EXPECT_EQ(r.outputs[0].at<float>(k * 30), at({picked[k] / 4, picked[k] % 4, 0, 0}));
    RunResult later = run_kernel(cb);  // mask without bytes at prepare
    EXPECT_EQ(later.status.code(), StatusCode::kUnsupported);
  }
  CallBuilder oob("aten::index.Tensor");
  const Buffer big = Buffer::i64({1}, {3});
  oob.tensor(x).tensors({&big});
  RunResult r = run_kernel(oob);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(r.status.message().find("aten::index.Tensor"), std::string::npos);
}

TEST(Index, Arange) {
  struct Case {
    const char* op;
    std::vector<double> bounds;
    bool floats;
    DType want;
    int64_t n;
  };
  const Case cases[] = {{"aten::arange", {5}, false, DType::kInt64, 5},
                        {"aten::arange.start", {2, 7}, false, DType::kInt64, 5},
                        {"aten::arange.start_step", {0, 1, 0.3}, true, DType::kFloat32, 4},
                        {"aten::arange.start_step", {10, 0, -3}, false, DType::kInt64, 4},
                        {"aten::arange.start", {0, 2.5}, true, DType::kFloat32, 3}};
  for (const Case& c : cases) {
    CallBuilder cb(c.op);
    for (double v : c.bounds) {
      if (c.floats) {
        cb.f(v);
      } else {
        cb.i(static_cast<int64_t>(v));
      }
    }
    cb.none().none().none().none();
    RunResult r = run_index_ok(cb);
    if (!r.status.ok()) continue;
    EXPECT_EQ(r.outputs[0].tensor().dtype, c.want) << c.op;
    ASSERT_EQ(r.outputs[0].shape(), (V{c.n})) << c.op;
    const double start = c.bounds.size() > 1 ? c.bounds[0] : 0;
    const double step = c.bounds.size() > 2 ? c.bounds[2] : 1;
    for (int64_t i = 0; i < c.n; ++i) {
      const double got =
          c.want == DType::kInt64 ? r.outputs[0].at<int64_t>(i) : r.outputs[0].at<float>(i);
      EXPECT_NEAR(got, start + i * step, 1e-6);
    }
  }
  CallBuilder typed("aten::arange");
  typed.i(3).dtype(DType::kFloat32).none().none().none();
  EXPECT_EQ(run_index_ok(typed).outputs[0].tensor().dtype, DType::kFloat32);
  CallBuilder bad("aten::arange.start_step");
  bad.i(0).i(5).i(0).none().none().none().none();
  EXPECT_FALSE(run_kernel(bad).status.ok());
}

}  // namespace
}  // namespace tir::kernels::testing
