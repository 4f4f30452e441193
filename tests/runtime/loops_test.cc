// torch's loops end to end on real torch exports (tests/data/gen_loops.py): while_loop with a
// data-dependent trip count (a cond nested in its body), scan (an RNN over a dynamic length,
// reversed on dim 1; two carries over two xs), map with weights, invoke_subgraph (one
// subgraph per layer, inlined), and data-dependent sizes (`x[:k.item()]` under torch._check,
// nonzero, masked_select, a masked count returned as an int; one case outside the checked
// range, which torch refuses too). Every case matches torch eager; a
// loop that runs past SessionOptions::max_loop_iterations fails naming its node.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "importer/import_pt2.h"
#include "ir/model.h"
#include "runtime/exec/session.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/npy.h"
#include "tests/common/test_util.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::read_all;
using testing::TempDir;
using testing::views;

std::string loops_dir() { return testing::fixture_dir() + "/loops"; }

const nlohmann::json& loops_manifest() {
  static const nlohmann::json m = [] {
    std::ifstream f(loops_dir() + "/manifest.json");
    return nlohmann::json::parse(f);
  }();
  return m;
}

const nlohmann::json& loops_fixture(const std::string& model, const std::string& dialect) {
  for (const auto& f : loops_manifest()["fixtures"])
    if (f["model"] == model && f["dialect"] == dialect) return f;
  ADD_FAILURE() << "no fixture " << model << "/" << dialect;
  static const nlohmann::json none;
  return none;
}

struct ImportedFiles {
  std::string model, weights;
};

ImportedFiles import_fixture(const nlohmann::json& f, const TempDir& tmp) {
  importer::ImportOptions o;
  o.input = loops_dir() + "/" + f["dir"].get<std::string>() + "/program.pt2";
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  auto imported = importer::import_pt2(o);
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  return {o.model_path, o.weights_path};
}

/// Op names of the nodes of `m` and of its subgraphs, nested ones included.
void collect_ops(const ir::fb::Method& m, std::multiset<std::string>* ops) {
  for (const ir::fb::Node* n : *m.nodes()) ops->insert(std::string(ir::str(n->op())));
  if (m.subgraphs())
    for (const ir::fb::Method* sub : *m.subgraphs()) collect_ops(*sub, ops);
}

std::multiset<std::string> imported_ops(const std::string& model_path) {
  auto bytes = read_file(model_path);
  EXPECT_TRUE(bytes.ok());
  std::multiset<std::string> ops;
  if (!bytes.ok()) return ops;
  auto view = ir::ModelView::open(*bytes, model_path);
  EXPECT_TRUE(view.ok()) << view.status().message();
  if (view.ok()) collect_ops(*view->method("forward"), &ops);
  return ops;
}

struct LoopCase {
  std::string model, dialect;
};

class LoopFixture : public ::testing::TestWithParam<LoopCase> {};

// Every case of the program (trip counts, lengths) in one session, against torch eager.
TEST_P(LoopFixture, MatchesTorchOnEveryCase) {
  const nlohmann::json& f = loops_fixture(GetParam().model, GetParam().dialect);
  ASSERT_FALSE(f.is_null());
  TempDir tmp;
  const ImportedFiles m = import_fixture(f, tmp);
  auto session = Session::open(m.model, m.weights);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::string dir = loops_dir() + "/" + f["dir"].get<std::string>();
  const double tol = f["rtol"].get<double>();
  for (size_t c = 0; c < f["cases"].size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const auto& cs = f["cases"][c];
    const std::vector<HostTensor> in = read_all(dir, cs["inputs"]);
    if (cs.contains("torch_error")) {  // torch refuses these inputs: so must tir, in one line
      auto refused = (*session)->run(views(in));
      ASSERT_FALSE(refused.ok()) << "torch refused: " << cs["torch_error"];
      const std::string msg = refused.status().message();
      EXPECT_NE(msg.find(".item() is 9, outside the range [1, "), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      continue;
    }
    const std::vector<HostTensor> want = read_all(dir, cs["outputs"]);
    auto got = (*session)->run(views(in));
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), want.size());
    for (size_t k = 0; k < want.size(); ++k)
      EXPECT_TRUE(testing::all_close((*got)[k], want[k].view(), tol, tol)) << "output " << k;
  }
  // The loops stay loops (their bodies are subgraphs run per iteration); invoke_subgraph is
  // spliced in once per call.
  const std::multiset<std::string> ops = imported_ops(m.model);
  const std::string& model = GetParam().model;
  if (model.starts_with("while")) EXPECT_EQ(ops.count(std::string(ir::kWhileLoopOp)), 1u);
  if (model.starts_with("scan")) EXPECT_EQ(ops.count(std::string(ir::kScanOp)), 1u);
  if (model.starts_with("map")) EXPECT_EQ(ops.count(std::string(ir::kMapOp)), 1u);
  if (model == "while_cond") EXPECT_EQ(ops.count(std::string(ir::kCondOp)), 1u);
  if (model == "item_slice" || model == "data_dependent")
    EXPECT_EQ(ops.count("aten::_local_scalar_dense"), 1u);
  if (model == "invoke_subgraph")
    EXPECT_EQ(ops.count("aten::native_layer_norm") + ops.count("aten::layer_norm"), 3u);
  for (const std::string& op : ops) EXPECT_NE(op, "higher_order::invoke_subgraph");
}

std::vector<LoopCase> all_cases() {
  std::vector<LoopCase> out;
  for (const auto& f : loops_manifest()["fixtures"]) out.push_back({f["model"], f["dialect"]});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Loops, LoopFixture, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) {
                           return info.param.model + "_" + info.param.dialect;
                         });

// The guard: a while_loop that would run 7 times under a limit of 5 fails with one line that
// names the node; under the limit the same session still runs.
TEST(WhileLoop, IterationLimitFailsNamingTheNode) {
  const nlohmann::json& f = loops_fixture("while_counter", "core");
  TempDir tmp;
  const ImportedFiles m = import_fixture(f, tmp);
  SessionOptions o;
  o.max_loop_iterations = 5;
  auto session = Session::open(m.model, m.weights, o);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::string dir = loops_dir() + "/" + f["dir"].get<std::string>();
  const auto& cases = f["cases"];
  ASSERT_EQ(cases[2]["inputs"][0]["shape"].size(), 0u);
  const std::vector<HostTensor> seven = read_all(dir, cases[2]["inputs"]);  // n = 7
  ASSERT_EQ(*seven[0].data<int64_t>(), 7);
  auto bad = (*session)->run(views(seven));
  ASSERT_FALSE(bad.ok());
  const std::string msg = bad.status().message();
  EXPECT_NE(msg.find("(higher_order::while_loop)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("after 5 iterations"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  const std::vector<HostTensor> three = read_all(dir, cases[0]["inputs"]);  // n = 3
  const std::vector<HostTensor> want = read_all(dir, cases[0]["outputs"]);
  auto ok = (*session)->run(views(three));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(testing::all_close((*ok)[1], want[1].view(), 1e-5, 1e-5));
}

// The carried state is not copied per iteration: a while_loop whose body computes all of its
// state copies only its final state, once, whether it runs 3 or 7 times; a scan and a map
// whose bodies compute every output copy nothing (their last iteration and their rows are
// computed in place).
TEST(Loops, StateIsNotCopiedPerIteration) {
  auto copied_per_case = [](const std::string& model) {
    const nlohmann::json& f = loops_fixture(model, "core");
    TempDir tmp;
    const ImportedFiles m = import_fixture(f, tmp);
    auto session = Session::open(m.model, m.weights);
    EXPECT_TRUE(session.ok()) << session.status().message();
    std::vector<uint64_t> copied;
    if (!session.ok()) return copied;
    const std::string dir = loops_dir() + "/" + f["dir"].get<std::string>();
    for (const auto& cs : f["cases"]) {
      const std::vector<HostTensor> in = read_all(dir, cs["inputs"]);
      const uint64_t before = (*session)->loop_copied_bytes();
      auto got = (*session)->run(views(in));
      EXPECT_TRUE(got.ok()) << got.status().message();
      copied.push_back((*session)->loop_copied_bytes() - before);
    }
    return copied;
  };
  const std::vector<uint64_t> whiles = copied_per_case("while_counter");  // n = 3, 5, 7
  ASSERT_EQ(whiles.size(), 3u);
  EXPECT_EQ(whiles[0], whiles[2]);
  EXPECT_LE(whiles[0], 8u + 8u * 8u * 4u) << "more than the final counter and state";
  for (const char* model : {"scan_rnn", "map_body", "map_of_scan"})
    for (uint64_t bytes : copied_per_case(model)) EXPECT_EQ(bytes, 0u) << model;
}

}  // namespace
}  // namespace tir
