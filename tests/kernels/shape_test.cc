// Shape ops: aliasing, -1 inference, flatten/squeeze/unsqueeze rules, permute and t index
// mapping, clone, dropout, and rejection of bad sizes. Any dtype.
#include <gtest/gtest.h>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

std::vector<int64_t> shape_after(CallBuilder cb, bool expect_alias = true) {
  RunResult r = run_kernel(cb);
  EXPECT_TRUE(r.status.ok()) << r.status.message();
  if (!r.status.ok()) return {-1};
  EXPECT_EQ(r.aliased(0), expect_alias) << cb.op();
  return r.outputs[0].shape();
}

using V = std::vector<int64_t>;

TEST(Shape, ViewReshapeInferAndAlias) {
  for (const char* op : {"aten::view", "aten::reshape", "aten::_unsafe_view"}) {
    CallBuilder cb(op);
    cb.tensor(iota({2, 3, 4})).ints({-1, 4});
    EXPECT_EQ(shape_after(cb), (V{6, 4}));
    CallBuilder bad(op);
    bad.tensor(iota({2, 3, 4})).ints({5, -1});
    RunResult r = run_kernel(bad);
    EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status.message().find(op), std::string::npos);
    EXPECT_NE(r.status.message().find("invalid for input of size 24"), std::string::npos);
    CallBuilder wrong(op);
    wrong.tensor(iota({2, 3})).ints({4, 2});
    EXPECT_EQ(run_kernel(wrong).status.code(), StatusCode::kInvalidArgument);
    CallBuilder two(op);
    two.tensor(iota({2, 3})).ints({-1, -1});
    EXPECT_EQ(run_kernel(two).status.code(), StatusCode::kInvalidArgument);
  }
  // Alias output sees the input's bytes.
  CallBuilder cb("aten::view");
  cb.tensor(iota({2, 3})).ints({3, 2});
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.info.output_alias[0], 0);
  EXPECT_FLOAT_EQ(r.outputs[0].at<float>(5), 5.f);
}

TEST(Shape, FlattenSqueezeUnsqueeze) {
  auto flat = [](V s, int64_t a, int64_t b) {
    CallBuilder cb("aten::flatten.using_ints");
    cb.tensor(iota(s)).i(a).i(b);
    return cb;
  };
  EXPECT_EQ(shape_after(flat({2, 3, 4, 5}, 1, -1)), (V{2, 60}));
  EXPECT_EQ(shape_after(flat({2, 3, 4, 5}, 1, 2)), (V{2, 12, 5}));
  EXPECT_EQ(shape_after(flat({}, 0, -1)), (V{1}));
  EXPECT_EQ(run_kernel(flat({2, 3}, 1, 0)).status.code(), StatusCode::kInvalidArgument);
  CallBuilder un("aten::unsqueeze");
  un.tensor(iota({2, 3})).i(-1);
  EXPECT_EQ(shape_after(un), (V{2, 3, 1}));
  CallBuilder un0("aten::unsqueeze");
  un0.tensor(iota({2, 3})).i(0);
  EXPECT_EQ(shape_after(un0), (V{1, 2, 3}));
  CallBuilder sq("aten::squeeze.dim");
  sq.tensor(iota({2, 1, 3})).i(1);
  EXPECT_EQ(shape_after(sq), (V{2, 3}));
  CallBuilder sq_noop("aten::squeeze.dim");
  sq_noop.tensor(iota({2, 1, 3})).i(0);
  EXPECT_EQ(shape_after(sq_noop), (V{2, 1, 3}));
  CallBuilder sq_bad("aten::squeeze.dim");
  sq_bad.tensor(iota({2, 1, 3})).i(3);
  EXPECT_EQ(run_kernel(sq_bad).status.code(), StatusCode::kInvalidArgument);
}

TEST(Shape, IdentityOps) {
  for (const char* op : {"aten::alias", "aten::detach"}) {
    CallBuilder cb(op);
    cb.tensor(iota({4}));
    EXPECT_EQ(shape_after(cb), (V{4}));
  }
  CallBuilder c("aten::contiguous");
  c.tensor(iota({4})).i(0);
  EXPECT_EQ(shape_after(c), (V{4}));
  CallBuilder d("aten::dropout");
  d.tensor(iota({4})).f(0.5).b(false);
  EXPECT_EQ(shape_after(d), (V{4}));
  CallBuilder dt("aten::dropout");
  dt.tensor(iota({4})).f(0.5).b(true);
  EXPECT_EQ(run_kernel(dt).status.code(), StatusCode::kUnsupported);
  CallBuilder cl("aten::clone");
  cl.tensor(Buffer::i64({3}, {7, 8, 9})).none();
  RunResult r = run_kernel(cl);
  ASSERT_TRUE(r.status.ok());
  EXPECT_FALSE(r.aliased(0));
  EXPECT_EQ(r.outputs[0].at<int64_t>(2), 9);
}

TEST(Shape, PermuteIndexMapping) {
  std::mt19937 rng(test_seed());
  for (int c = 0; c < 20; ++c) {
    const int rank = std::uniform_int_distribution<int>(1, 5)(rng);
    V s;
    for (int d = 0; d < rank; ++d) s.push_back(std::uniform_int_distribution<int64_t>(1, 4)(rng));
    V perm(rank);
    for (int d = 0; d < rank; ++d) perm[d] = d;
    std::shuffle(perm.begin(), perm.end(), rng);
    Buffer x = iota(s);
    CallBuilder cb("aten::permute");
    V dims = perm;
    if (c % 2) dims[0] -= rank;  // negative dims are allowed
    cb.tensor(x).ints(dims);
    RunResult r = run_kernel(cb);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_FALSE(r.aliased(0));
    const Tensor& in = x.tensor();
    const Tensor& out = r.outputs[0].tensor();
    for (int d = 0; d < rank; ++d) ASSERT_EQ(out.sizes[d], in.sizes[perm[d]]);
    // out[idx] == in[idx permuted back]
    for (int64_t o = 0; o < out.numel(); ++o) {
      int64_t rem = o, in_off = 0;
      for (int d = rank - 1; d >= 0; --d) {
        in_off += (rem % out.sizes[d]) * in.strides[perm[d]];
        rem /= out.sizes[d];
      }
      ASSERT_EQ(r.outputs[0].at<float>(o), x.at<float>(in_off));
    }
  }
  CallBuilder bad("aten::permute");
  bad.tensor(iota({2, 3})).ints({0, 0});
  EXPECT_EQ(run_kernel(bad).status.code(), StatusCode::kInvalidArgument);
}

TEST(Shape, Transpose) {
  CallBuilder cb("aten::t");
  cb.tensor(Buffer::i64({2, 3}, {0, 1, 2, 3, 4, 5}));
  RunResult r = run_kernel(cb);
  ASSERT_TRUE(r.status.ok());
  EXPECT_EQ(r.outputs[0].shape(), (V{3, 2}));
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) EXPECT_EQ(r.outputs[0].at<int64_t>(i * 2 + j), j * 3 + i);
  }
  CallBuilder one("aten::t");
  one.tensor(iota({3}));
  EXPECT_EQ(shape_after(one), (V{3}));
  CallBuilder three("aten::t");
  three.tensor(iota({1, 2, 3}));
  EXPECT_EQ(run_kernel(three).status.code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tir::kernels::testing
