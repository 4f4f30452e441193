// Data-movement ops (slice, select, narrow, split, chunk, unbind, cat, stack, expand,
// repeat, transpose, squeeze, flip, roll): each output is checked element by element
// against the index mapping of the op, computed here from the op's definition.
#include <gtest/gtest.h>

#include <functional>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

using V = std::vector<int64_t>;
// Maps an output multi-index to the input multi-index it reads (or -1 entries: skip).
using IndexMap = std::function<V(const V&)>;

Buffer iota_as(V shape, DType dtype = DType::kFloat32) {
  Buffer b(dtype, std::move(shape));
  const int64_t n = b.tensor().numel();
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == DType::kInt64) {
      b.span<int64_t>()[i] = i;
    } else {
      b.span<float>()[i] = static_cast<float>(i);
    }
  }
  return b;
}

int64_t flat(const V& idx, const V& shape) {
  int64_t f = 0;
  for (size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
  return f;
}

// Every element of `out` equals in[map(out index)] for the iota input of `in_shape`.
void expect_mapping(const Buffer& out, const V& in_shape, const IndexMap& map) {
  const V shape = out.shape();
  const int64_t n = out.tensor().numel();
  V idx(shape.size(), 0);
  for (int64_t o = 0; o < n; ++o) {
    const int64_t want = flat(map(idx), in_shape);
    ASSERT_EQ(out.at<float>(o), static_cast<float>(want)) << "output element " << o;
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
}

RunResult run_copy_ok(const CallBuilder& cb, int n_outputs = 1) {
  RunResult r = run_kernel(cb, {KernelImpl::kReference, n_outputs});
  EXPECT_TRUE(r.status.ok()) << cb.op() << ": " << r.status.message();
  return r;
}

void expect_copy_rejected(const CallBuilder& cb, std::string_view word, int n_outputs = 1) {
  RunResult r = run_kernel(cb, {KernelImpl::kReference, n_outputs});
  ASSERT_FALSE(r.status.ok()) << cb.op();
  EXPECT_NE(r.status.message().find(cb.op()), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find(word), std::string::npos) << r.status.message();
}

TEST(Copy, Slice) {
  const V in{4, 5, 6};
  const int64_t kBig = std::numeric_limits<int64_t>::max();
  struct Case {
    int64_t dim;
    std::optional<int64_t> start, end;
    int64_t step;
    int64_t want_start, want_len;
  };
  const Case cases[] = {
      {1, 1, 4, 1, 1, 3},      {1, std::nullopt, std::nullopt, 2, 0, 3},
      {-1, -4, kBig, 1, 2, 4}, {2, 0, kBig, 3, 0, 2},
      {0, -100, 2, 1, 0, 2},   {1, 3, 1, 1, 3, 0},
      {0, 0, kBig, 1, 0, 4},  // whole tensor: aliases
  };
  for (const Case& c : cases) {
    CallBuilder cb("aten::slice.Tensor");
    cb.tensor(iota_as(in)).i(c.dim);
    c.start ? cb.i(*c.start) : cb.none();
    c.end ? cb.i(*c.end) : cb.none();
    cb.i(c.step);
    RunResult r = run_copy_ok(cb);
    if (!r.status.ok()) continue;
    const int d = static_cast<int>(c.dim < 0 ? c.dim + 3 : c.dim);
    V want = in;
    want[d] = c.want_len;
    EXPECT_EQ(r.outputs[0].shape(), want);
    expect_mapping(r.outputs[0], in, [&](V i) {
      i[d] = c.want_start + i[d] * c.step;
      return i;
    });
  }
  CallBuilder whole("aten::slice.Tensor");
  whole.tensor(iota_as(in)).i(0).i(0).i(kBig).i(1);
  EXPECT_TRUE(run_copy_ok(whole).aliased(0));
  CallBuilder bad("aten::slice.Tensor");
  bad.tensor(iota_as(in)).i(3).none().none().i(1);
  expect_copy_rejected(bad, "dim");
  CallBuilder step0("aten::slice.Tensor");
  step0.tensor(iota_as(in)).i(0).none().none().i(0);
  expect_copy_rejected(step0, "step");
}

TEST(Copy, SelectNarrowAnyDtype) {
  const V in{3, 4, 5};
  for (int64_t index : {0, 2, -1}) {
    CallBuilder cb("aten::select.int");
    cb.tensor(iota_as(in)).i(1).i(index);
    RunResult r = run_copy_ok(cb);
    EXPECT_EQ(r.outputs[0].shape(), (V{3, 5}));
    expect_mapping(r.outputs[0], in, [&](const V& i) {
      return V{i[0], index < 0 ? index + 4 : index, i[1]};
    });
  }
  CallBuilder sel64("aten::select.int");
  sel64.tensor(iota_as(in, DType::kInt64)).i(0).i(2);
  RunResult r64 = run_copy_ok(sel64);
  EXPECT_EQ(r64.outputs[0].tensor().dtype, DType::kInt64);
  EXPECT_EQ(r64.outputs[0].at<int64_t>(0), 40);
  CallBuilder nar("aten::narrow");
  nar.tensor(iota_as(in)).i(2).i(-3).i(2);
  RunResult rn = run_copy_ok(nar);
  EXPECT_EQ(rn.outputs[0].shape(), (V{3, 4, 2}));
  expect_mapping(rn.outputs[0], in, [](const V& i) { return V{i[0], i[1], i[2] + 2}; });
  CallBuilder bad("aten::select.int");
  bad.tensor(iota_as(in)).i(1).i(4);
  expect_copy_rejected(bad, "index");
  CallBuilder badn("aten::narrow");
  badn.tensor(iota_as(in)).i(0).i(2).i(2);
  expect_copy_rejected(badn, "exceeds");
}

TEST(Copy, SplitChunkUnbind) {
  const V in{7, 3};
  auto check_pieces = [&](const RunResult& r, int dim, const V& sizes) {
    int64_t start = 0;
    for (size_t k = 0; k < sizes.size(); ++k) {
      V want = in;
      want[dim] = sizes[k];
      EXPECT_EQ(r.outputs[k].shape(), want) << "piece " << k;
      expect_mapping(r.outputs[k], in, [&](V i) {
        i[dim] += start;
        return i;
      });
      start += sizes[k];
    }
  };
  CallBuilder sp("aten::split.Tensor");
  sp.tensor(iota_as(in)).i(3).i(0);
  check_pieces(run_copy_ok(sp, 3), 0, {3, 3, 1});
  CallBuilder sws("aten::split_with_sizes");
  sws.tensor(iota_as(in)).ints({1, 2}).i(-1);
  check_pieces(run_copy_ok(sws, 2), 1, {1, 2});
  CallBuilder ch("aten::chunk");
  ch.tensor(iota_as(in)).i(3).i(0);
  check_pieces(run_copy_ok(ch, 3), 0, {3, 3, 1});
  CallBuilder one("aten::split.Tensor");  // one piece = the input: aliased
  one.tensor(iota_as(in)).i(10).i(0);
  EXPECT_TRUE(run_copy_ok(one, 1).aliased(0));
  CallBuilder ub("aten::unbind.int");
  ub.tensor(iota_as(in)).i(1);
  RunResult r = run_copy_ok(ub, 3);
  for (int64_t k = 0; k < 3; ++k) {
    EXPECT_EQ(r.outputs[k].shape(), (V{7}));
    expect_mapping(r.outputs[k], in, [&](const V& i) { return V{i[0], k}; });
  }
  CallBuilder wrong("aten::split.Tensor");
  wrong.tensor(iota_as(in)).i(3).i(0);
  expect_copy_rejected(wrong, "outputs", 2);
  CallBuilder badsum("aten::split_with_sizes");
  badsum.tensor(iota_as(in)).ints({1, 1}).i(1);
  expect_copy_rejected(badsum, "split_sizes", 2);
}

TEST(Copy, CatStack) {
  const Buffer a = iota_as({2, 3}), b = iota_as({2, 1}), empty = iota_as({0});
  CallBuilder cat("aten::cat");
  cat.tensors({&a, &empty, &b}).i(-1);
  RunResult r = run_copy_ok(cat);
  ASSERT_EQ(r.outputs[0].shape(), (V{2, 4}));
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      const float want = j < 3 ? a.at<float>(i * 3 + j) : b.at<float>(i);
      EXPECT_EQ(r.outputs[0].at<float>(i * 4 + j), want);
    }
  }
  const Buffer c = iota_as({2, 3});
  for (int64_t dim : {0, 1, 2, -1}) {
    CallBuilder st("aten::stack");
    st.tensors({&a, &c}).i(dim);
    RunResult rs = run_copy_ok(st);
    const int d = static_cast<int>(dim < 0 ? dim + 3 : dim);
    V want{2, 3};
    want.insert(want.begin() + d, 2);
    ASSERT_EQ(rs.outputs[0].shape(), want);
    expect_mapping(rs.outputs[0], {2, 3}, [&](V i) {
      i.erase(i.begin() + d);  // both inputs are the same iota
      return i;
    });
  }
  CallBuilder bad("aten::cat");
  bad.tensors({&a, &b}).i(0);
  expect_copy_rejected(bad, "differ");
  const Buffer i64 = iota_as({2, 3}, DType::kInt64);
  CallBuilder mixed("aten::cat");
  mixed.tensors({&a, &i64}).i(0);
  expect_copy_rejected(mixed, "dtype");
}

TEST(Copy, ExpandRepeat) {
  CallBuilder ex("aten::expand");
  ex.tensor(iota_as({3, 1})).ints({2, -1, 4}).b(false);
  RunResult r = run_copy_ok(ex);
  EXPECT_EQ(r.outputs[0].shape(), (V{2, 3, 4}));
  expect_mapping(r.outputs[0], {3, 1}, [](const V& i) { return V{i[1], 0}; });
  CallBuilder same("aten::expand");
  same.tensor(iota_as({3, 4})).ints({3, 4}).b(false);
  EXPECT_TRUE(run_copy_ok(same).aliased(0));
  CallBuilder bad("aten::expand");
  bad.tensor(iota_as({3, 2})).ints({3, 4}).b(false);
  expect_copy_rejected(bad, "expanded size");
  CallBuilder rep("aten::repeat");
  rep.tensor(iota_as({2, 3})).ints({2, 1, 2});
  RunResult rr = run_copy_ok(rep);
  EXPECT_EQ(rr.outputs[0].shape(), (V{2, 2, 6}));
  expect_mapping(rr.outputs[0], {2, 3}, [](const V& i) { return V{i[1] % 2, i[2] % 3}; });
  CallBuilder badr("aten::repeat");
  badr.tensor(iota_as({2, 3})).ints({2});
  expect_copy_rejected(badr, "repeats");
}

TEST(Copy, TransposeSqueezeFlipRoll) {
  const V in{2, 3, 4};
  for (const char* op : {"aten::transpose.int", "aten::swapaxes"}) {
    CallBuilder tr(op);
    tr.tensor(iota_as(in)).i(0).i(-1);
    RunResult r = run_copy_ok(tr);
    EXPECT_EQ(r.outputs[0].shape(), (V{4, 3, 2}));
    expect_mapping(r.outputs[0], in, [](const V& i) { return V{i[2], i[1], i[0]}; });
  }
  CallBuilder sq("aten::squeeze");
  sq.tensor(iota_as({1, 3, 1, 2}));
  RunResult rs = run_copy_ok(sq);
  EXPECT_EQ(rs.outputs[0].shape(), (V{3, 2}));
  EXPECT_TRUE(rs.aliased(0));
  CallBuilder sqd("aten::squeeze.dims");
  sqd.tensor(iota_as({1, 3, 1, 2})).ints({0, 1, -2});
  EXPECT_EQ(run_copy_ok(sqd).outputs[0].shape(), (V{3, 2}));
  CallBuilder fl("aten::flip");
  fl.tensor(iota_as(in)).ints({0, 2});
  expect_mapping(run_copy_ok(fl).outputs[0], in, [](const V& i) {
    return V{1 - i[0], i[1], 3 - i[2]};
  });
  CallBuilder ro("aten::roll");
  ro.tensor(iota_as(in)).ints({1, -1}).ints({1, 2});
  expect_mapping(run_copy_ok(ro).outputs[0], in, [](const V& i) {
    return V{i[0], (i[1] + 2) % 3, (i[2] + 1) % 4};
  });
  CallBuilder flat("aten::roll");
  flat.tensor(iota_as(in)).ints({5}).ints({});
  RunResult rf = run_copy_ok(flat);
  for (int64_t o = 0; o < 24; ++o) EXPECT_EQ(rf.outputs[0].at<float>(o), (o + 19) % 24);
  CallBuilder bad("aten::transpose.int");
  bad.tensor(iota_as(in)).i(0).i(3);
  expect_copy_rejected(bad, "dim1");
}

}  // namespace
}  // namespace tir::kernels::testing
