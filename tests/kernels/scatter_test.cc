// Scattering kernels (index_copy(_), index_put(_)) against torch eager's results in
// tests/data/fixtures/kernels/scatter.json (tests/data/gen_kernel_scatter.py), plus the
// errors: out-of-range indices (nothing written), bad shapes and dtypes.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/common/test_util.h"
#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

using V = std::vector<int64_t>;
using nlohmann::json;

Buffer from_json(const json& j) {
  const std::string dtype = j["dtype"];
  const V shape = j["shape"].get<V>();
  if (dtype == "int64") return Buffer::i64(shape, j["data"].get<V>());
  if (dtype == "bool") {
    Buffer b(DType::kBool, shape);
    const std::vector<bool> v = j["data"].get<std::vector<bool>>();
    for (size_t i = 0; i < v.size(); ++i) b.span<uint8_t>()[i] = v[i];
    return b;
  }
  return Buffer::f32(shape, j["data"].get<std::vector<float>>());
}

json load_cases() {
  std::ifstream f(tir::testing::fixture_dir() + "/kernels/scatter.json");
  if (!f) return json::array();
  return json::parse(f)["cases"];
}

TEST(Scatter, MatchesTorch) {
  const json cases = load_cases();
  ASSERT_GE(cases.size(), 10u) << "missing tests/data/fixtures/kernels/scatter.json";
  for (const json& c : cases) {
    const std::string op = c["op"];
    SCOPED_TRACE(op + " " + c["name"].get<std::string>());
    CallBuilder cb(op);
    bool mask = false;
    std::vector<Buffer> index_list;  // outlives `cb.tensors`
    cb.tensor(from_json(c["self"]));
    if (c.contains("dim")) {
      cb.i(c["dim"].get<int64_t>()).tensor(from_json(c["index"])).tensor(from_json(c["source"]));
    } else {
      for (const json& i : c["indices"]) {
        if (!i.is_null()) index_list.push_back(from_json(i));
      }
      std::vector<const Buffer*> list;
      size_t k = 0;
      for (const json& i : c["indices"]) {
        list.push_back(i.is_null() ? nullptr : &index_list[k++]);
        mask = mask || (!i.is_null() && i["dtype"] == "bool");
      }
      cb.tensors(list).tensor(from_json(c["values"])).b(c["accumulate"].get<bool>());
    }
    // A bool mask's values decide the indexed shape, so it must be known at prepare.
    RunResult r = run_kernel(cb, {KernelImpl::kReference, 1, mask});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.aliased(0), op.back() == '_');
    EXPECT_TRUE(all_close(r.outputs[0], from_json(c["want"]), 1e-6, 1e-6));
  }
}

void expect_error(const RunResult& r, StatusCode code, const std::string& op,
                  const std::string& what) {
  ASSERT_FALSE(r.status.ok());
  EXPECT_EQ(r.status.code(), code) << r.status.message();
  EXPECT_NE(r.status.message().find(op), std::string::npos) << r.status.message();
  EXPECT_NE(r.status.message().find(what), std::string::npos) << r.status.message();
}

TEST(Scatter, IndexCopyOutOfRangeWritesNothing) {
  const Buffer self = iota({1, 2, 4, 3});
  for (int64_t bad : {4, -1}) {  // torch's index_copy takes no negative index either
    CallBuilder cb("aten::index_copy_");
    cb.tensor(self).i(2).tensor(Buffer::i64({2}, {0, bad})).tensor(Buffer::f32({1, 2, 2, 3}));
    RunResult r = run_kernel(cb);
    expect_error(r, StatusCode::kInvalidArgument, "aten::index_copy_", "out of bounds");
    ASSERT_TRUE(r.aliased(0));
    EXPECT_TRUE(all_close(r.outputs[0], self, 0, 0)) << "self was written";
  }
}

TEST(Scatter, IndexCopyRejectsBadArguments) {
  const Buffer self = iota({4, 3});
  Buffer i32(DType::kInt32, {1});
  CallBuilder dtype("aten::index_copy");
  dtype.tensor(self).i(0).tensor(i32).tensor(Buffer::f32({1, 3}));
  expect_error(run_kernel(dtype), StatusCode::kInvalidArgument, "aten::index_copy", "int64");
  CallBuilder shape("aten::index_copy");
  shape.tensor(self).i(0).tensor(Buffer::i64({1})).tensor(Buffer::f32({1, 2}));
  expect_error(run_kernel(shape), StatusCode::kInvalidArgument, "aten::index_copy", "outside dim");
  CallBuilder count("aten::index_copy");
  count.tensor(self).i(-2).tensor(Buffer::i64({2})).tensor(Buffer::f32({1, 3}));
  expect_error(run_kernel(count), StatusCode::kInvalidArgument, "aten::index_copy", "entries");
  CallBuilder dim("aten::index_copy");
  dim.tensor(self).i(2).tensor(Buffer::i64({1})).tensor(Buffer::f32({1, 3}));
  EXPECT_FALSE(run_kernel(dim).status.ok());
}

TEST(Scatter, IndexPutOutOfRangeWritesNothing) {
  const Buffer self = iota({1, 2, 4, 3});
  const Buffer pos = Buffer::i64({2}, {1, -5});
  CallBuilder cb("aten::index_put_");
  cb.tensor(self).tensors({nullptr, nullptr, &pos}).tensor(Buffer::f32({1, 2, 2, 3})).b(false);
  RunResult r = run_kernel(cb);
  expect_error(r, StatusCode::kInvalidArgument, "aten::index_put_", "out of bounds");
  ASSERT_TRUE(r.aliased(0));
  EXPECT_TRUE(all_close(r.outputs[0], self, 0, 0)) << "self was written";
}

TEST(Scatter, IndexPutRejectsBadArguments) {
  const Buffer self = iota({4, 3});
  const Buffer idx = Buffer::i64({2}, {0, 1});
  CallBuilder shape("aten::index_put");
  shape.tensor(self).tensors({&idx}).tensor(Buffer::f32({3, 3})).b(false);
  expect_error(run_kernel(shape), StatusCode::kInvalidArgument, "aten::index_put",
               "cannot be broadcast");
  CallBuilder rank("aten::index_put");  // torch does not drop leading 1s of values either
  rank.tensor(self).tensors({&idx}).tensor(Buffer::f32({1, 2, 3})).b(false);
  EXPECT_FALSE(run_kernel(rank).status.ok());
  CallBuilder dtype("aten::index_put");
  dtype.tensor(self).tensors({&idx}).tensor(Buffer::i64({2, 3})).b(false);
  expect_error(run_kernel(dtype), StatusCode::kInvalidArgument, "aten::index_put", "dtype");
  CallBuilder half("aten::index_put");
  half.tensor(Buffer(DType::kFloat16, {4, 3}))
      .tensors({&idx})
      .tensor(Buffer(DType::kFloat16, {3}))
      .b(true);
  expect_error(run_kernel(half), StatusCode::kUnsupported, "aten::index_put", "accumulate");
}

// A mask known only at run time (an activation): its true rows are found in run; values
// broadcast to them or hold one row each.
TEST(Scatter, IndexPutThroughAMaskKnownOnlyAtRun) {
  const Buffer self = iota({4, 3});
  Buffer mask(DType::kBool, {4});
  auto* m = static_cast<bool*>(mask.tensor().data);
  m[1] = m[3] = true;
  CallBuilder fill("aten::index_put");
  fill.tensor(self).tensors({&mask}).tensor(Buffer::f32({3}, {-1, -2, -3})).b(false);
  const RunResult r = run_kernel(fill);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_TRUE(all_close(r.outputs[0],
                        Buffer::f32({4, 3}, {0, 1, 2, -1, -2, -3, 6, 7, 8, -1, -2, -3}), 0, 0));
  CallBuilder rows("aten::index_put");  // one row per true element, accumulated
  rows.tensor(self).tensors({&mask}).tensor(Buffer::f32({2, 3}, {1, 1, 1, 2, 2, 2})).b(true);
  const RunResult a = run_kernel(rows);
  ASSERT_TRUE(a.status.ok()) << a.status.message();
  EXPECT_TRUE(
      all_close(a.outputs[0], Buffer::f32({4, 3}, {0, 1, 2, 4, 5, 6, 6, 7, 8, 11, 12, 13}), 0, 0));
  CallBuilder wrong("aten::index_put");  // 3 rows for 2 true elements
  wrong.tensor(self).tensors({&mask}).tensor(Buffer::f32({3, 3})).b(false);
  expect_error(run_kernel(wrong), StatusCode::kInvalidArgument, "aten::index_put",
               "2 true elements");
}

}  // namespace
}  // namespace tir::kernels::testing
