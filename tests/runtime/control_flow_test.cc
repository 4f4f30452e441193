// torch.cond end to end on real torch exports: the branch torch took is the branch tir runs.
// Kernel calls of a run count the nodes of the branches that ran, so each case's count
// names the path taken (torch's predicate values are in the manifests: the cond_true /
// cond_false fixtures are one program with inputs for each branch; the dynamic cond_dim
// fixture records "branches" per case, outer predicate first, with a nested data-dependent
// cond in the false branch).
#include <gtest/gtest.h>

#include <set>

#include "importer/import_pt2.h"
#include "ir/model.h"
#include "ir/weight_file.h"
#include "runtime/exec/session.h"
#include "runtime/weights/data_loader.h"
#include "runtime/weights/npy.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::TempDir;

/// Kernel calls of one run of `m` when its cond nodes take `branches` (outermost first): its
/// own nodes plus, at each cond, those of the branch taken.
uint64_t calls_for_path(const ir::fb::Method& m, std::vector<bool>* branches) {
  uint64_t n = m.nodes()->size();
  for (const ir::fb::Node* node : *m.nodes()) {
    if (ir::str(node->op()) != ir::kCondOp) continue;
    EXPECT_FALSE(branches->empty()) << "more cond nodes than recorded predicates";
    if (branches->empty()) return n;
    const bool taken = branches->front();
    branches->erase(branches->begin());
    const int32_t g = node->args()->Get(taken ? 1 : 2)->value_as_GraphArg()->index();
    n += calls_for_path(*m.subgraphs()->Get(g), branches);
  }
  return n;
}

struct ImportedSession {
  std::unique_ptr<Session> session;
  std::shared_ptr<const DataSource> bytes;  // the .tir, to walk its subgraphs
  const ir::fb::Method* forward = nullptr;
};

ImportedSession import_and_open(const std::string& pt2, const TempDir& tmp) {
  importer::ImportOptions o;
  o.input = pt2;
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  auto imported = importer::import_pt2(o);
  EXPECT_TRUE(imported.ok()) << imported.status().message();
  ImportedSession out;
  if (!imported.ok()) return out;
  SessionOptions options;
  options.fuse = false;  // kernel calls counted per node of the taken branch
  auto session = Session::open(o.model_path, o.weights_path, options);
  EXPECT_TRUE(session.ok()) << session.status().message();
  auto bytes = data_source_mmap(o.model_path);
  EXPECT_TRUE(bytes.ok());
  if (!session.ok() || !bytes.ok()) return out;
  out.session = std::move(session).value();
  out.bytes = *bytes;
  auto view = ir::ModelView::open(out.bytes->bytes(), o.model_path);
  EXPECT_TRUE(view.ok());
  if (view.ok()) out.forward = view->method("forward");
  return out;
}

/// Runs `inputs` (files in `dir`), compares with `outputs`, returns the kernel calls made.
uint64_t run_and_compare(Session& s, const std::string& dir, const nlohmann::json& inputs,
                         const nlohmann::json& outputs, double tol) {
  std::vector<HostTensor> in;
  std::vector<Tensor> views;
  for (const auto& e : inputs) {
    auto t = npy_read(dir + "/" + e["file"].get<std::string>());
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (t.ok()) in.push_back(std::move(t).value());
  }
  for (const HostTensor& h : in) views.push_back(h.view());
  const uint64_t before = s.kernel_calls();
  auto got = s.run(views);
  EXPECT_TRUE(got.ok()) << got.status().message();
  if (!got.ok()) return 0;
  EXPECT_EQ(got->size(), outputs.size());
  for (size_t k = 0; k < outputs.size() && k < got->size(); ++k) {
    auto want = npy_read(dir + "/" + outputs[k]["file"].get<std::string>());
    EXPECT_TRUE(want.ok());
    if (want.ok())
      EXPECT_TRUE(testing::all_close((*got)[k], want->view(), tol, tol)) << "output " << k;
  }
  return s.kernel_calls() - before;
}

const nlohmann::json* find_fixture(const nlohmann::json& manifest, const std::string& model,
                                   const std::string& dialect) {
  for (const auto& f : manifest["fixtures"])
    if (f["model"] == model && f["dialect"] == dialect) return &f;
  return nullptr;
}

class CondOnData : public ::testing::TestWithParam<std::string> {};

// One imported program, inputs torch sent down each branch, both runs in one session.
TEST_P(CondOnData, TensorPredicateTakesEachBranchAsTorchDid) {
  const nlohmann::json manifest = testing::manifest();
  TempDir tmp;
  const std::string root = testing::fixture_dir() + "/";
  ImportedSession m = import_and_open(root + "cond_true/" + GetParam() + "/program.pt2", tmp);
  ASSERT_NE(m.session, nullptr);
  ASSERT_NE(m.forward, nullptr);
  std::vector<bool> t = {true}, f = {false};
  ASSERT_NE(calls_for_path(*m.forward, &t), calls_for_path(*m.forward, &f))
      << "the branches must differ in node count for the count to tell them apart";
  for (const bool taken : {true, false, true}) {
    const nlohmann::json* f =
        find_fixture(manifest, taken ? "cond_true" : "cond_false", GetParam());
    ASSERT_NE(f, nullptr);
    SCOPED_TRACE(f->at("dir").get<std::string>());
    std::vector<bool> path = {taken};
    const uint64_t calls = run_and_compare(*m.session, root + f->at("dir").get<std::string>(),
                                           f->at("inputs"), f->at("outputs"), f->at("rtol"));
    EXPECT_EQ(calls, calls_for_path(*m.forward, &path));
  }
  EXPECT_EQ(m.session->num_cached_plans(), 1u);  // same shapes: one plan, both branches in it
}

INSTANTIATE_TEST_SUITE_P(Dialects, CondOnData, ::testing::Values("training", "core"));

class CondOnDim : public ::testing::TestWithParam<std::string> {};

// Symbolic predicate (batch > 4) with a tensor-predicate cond nested in its false branch.
TEST_P(CondOnDim, EveryCaseTakesTheBranchesTorchTook) {
  std::ifstream mf(testing::fixture_dir() + "/dynamic/manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(mf);
  const nlohmann::json* f = find_fixture(manifest, "cond_dim", GetParam());
  ASSERT_NE(f, nullptr);
  const std::string dir = testing::fixture_dir() + "/dynamic/" + f->at("dir").get<std::string>();
  TempDir tmp;
  ImportedSession m = import_and_open(dir + "/program.pt2", tmp);
  ASSERT_NE(m.session, nullptr);
  ASSERT_NE(m.forward, nullptr);
  std::set<std::vector<bool>> paths;
  for (const auto& c : f->at("cases")) {
    SCOPED_TRACE("batch " + c["value"].dump() + ", branches " + c["branches"].dump());
    std::vector<bool> path = c["branches"].get<std::vector<bool>>();
    paths.insert(path);
    const uint64_t calls =
        run_and_compare(*m.session, dir, c["inputs"], c["outputs"], f->at("rtol"));
    EXPECT_EQ(calls, calls_for_path(*m.forward, &path));
    EXPECT_TRUE(path.empty()) << "a recorded predicate has no cond node";
  }
  EXPECT_EQ(paths.size(), 3u) << "the cases must reach all three paths";
  std::set<uint64_t> counts;
  for (std::vector<bool> p : paths) counts.insert(calls_for_path(*m.forward, &p));
  EXPECT_EQ(counts.size(), 3u) << "the paths must differ in node count";
}

INSTANTIATE_TEST_SUITE_P(Dialects, CondOnDim, ::testing::Values("training", "core"));

/// The weight file at `path` with every float32 tensor negated, as a second set for the model.
std::shared_ptr<const WeightSet> negated_weights(const std::string& path) {
  auto bytes = read_file(path);
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  auto file = ir::WeightFileView::open(*bytes, path);
  EXPECT_TRUE(file.ok()) << file.status().message();
  for (const ir::fb::WeightEntry* e : *file->index().entries()) {
    const std::span<const uint8_t> s = file->stored_bytes(*e);
    float* f = reinterpret_cast<float*>(const_cast<uint8_t*>(s.data()));
    for (size_t i = 0; i < s.size() / sizeof(float); ++i) f[i] = -f[i];
  }
  WeightSetOptions o;
  o.verify_checksums = false;  // the checksums are of the original bytes
  auto set = WeightSet::from_source(data_source_from_buffer(std::move(*bytes), path + "*-1"), o);
  EXPECT_TRUE(set.ok()) << set.status().message();
  return set.ok() ? *set : nullptr;
}

// Branch weights bind by name, and follow Session::swap_weights like the main graph's.
TEST(CondWeights, BranchesFollowSwappedWeights) {
  TempDir tmp;
  const std::string root = testing::fixture_dir() + "/";
  ImportedSession m = import_and_open(root + "cond_true/core/program.pt2", tmp);
  ASSERT_NE(m.session, nullptr);
  auto original = WeightSet::open(tmp.file("m.bin"));
  auto negated = negated_weights(tmp.file("m.bin"));
  ASSERT_TRUE(original.ok() && negated);
  auto reference = Session::create(m.bytes, negated);  // a fresh session over the new set
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  const nlohmann::json manifest = testing::manifest();
  for (const char* name : {"cond_true", "cond_false"}) {
    SCOPED_TRACE(name);
    const nlohmann::json* f = find_fixture(manifest, name, "core");
    ASSERT_NE(f, nullptr);
    const std::string dir = root + f->at("dir").get<std::string>();
    std::vector<HostTensor> in;
    std::vector<Tensor> views;
    for (const auto& e : f->at("inputs")) {
      auto t = npy_read(dir + "/" + e["file"].get<std::string>());
      ASSERT_TRUE(t.ok());
      in.push_back(std::move(t).value());
    }
    for (const HostTensor& h : in) views.push_back(h.view());
    ASSERT_TRUE(m.session->run(views).ok());  // plans and branch executors on the original set
    ASSERT_TRUE(m.session->swap_weights(negated).ok());
    auto got = m.session->run(views);
    auto want = (*reference)->run(views);
    ASSERT_TRUE(got.ok() && want.ok());
    for (size_t k = 0; k < got->size(); ++k)
      EXPECT_TRUE(testing::all_close((*got)[k], (*want)[k], 0, 0)) << "output " << k;
    auto torch_out = npy_read(dir + "/" + f->at("outputs")[0]["file"].get<std::string>());
    ASSERT_TRUE(torch_out.ok());
    EXPECT_FALSE(testing::all_close((*got)[0], torch_out->view(), 1e-3, 1e-3))
        << "negating the weights must change the branch's result";
    ASSERT_TRUE(m.session->swap_weights(*original).ok());
    got = m.session->run(views);
    ASSERT_TRUE(got.ok());
    EXPECT_TRUE(testing::all_close((*got)[0], torch_out->view(), f->at("rtol"), f->at("atol")));
  }
}

}  // namespace
}  // namespace tir
