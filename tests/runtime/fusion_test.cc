// Load-time GEMM/conv + activation fusion (runtime/fusion.h): real torch fixtures run fused
// and unfused (SessionOptions::fuse), both match torch and each other, fusion really
// happened (groups formed, fewer kernel calls), and a group whose intermediate escapes is
// not formed. Fixtures: tests/data/fixtures/{gpt2,bert,...} (gen.py) and fixtures/fusion/
// (gen_fusion.py).
#include <gtest/gtest.h>

#include "runtime/profiler.h"
#include "runtime/weight_set.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::import_fixture;
using testing::read_all;
using testing::TempDir;
using testing::views;

struct FusionRun {
  size_t groups = 0;
  uint64_t calls = 0;
  std::vector<HostTensor> outputs;
};

/// Imports `dir`, runs its inputs once with fusion on or off.
FusionRun run_fixture(const std::string& dir, const nlohmann::json& f, bool fuse) {
  FusionRun r;
  TempDir tmp;
  if (!import_fixture(dir, tmp)) return r;
  SessionOptions o;
  o.fuse = fuse;
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), o);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return r;
  const auto inputs = read_all(dir, f["inputs"]);
  auto outputs = (*session)->run(views(inputs));
  EXPECT_TRUE(outputs.ok()) << outputs.status().message();
  if (!outputs.ok()) return r;
  r.outputs = testing::copies(*outputs);
  r.groups = (*session)->num_fused_groups();
  r.calls = (*session)->kernel_calls();
  return r;
}

nlohmann::json find_fixture(const nlohmann::json& manifest, const std::string& dir) {
  for (const auto& f : manifest["fixtures"])
    if (f["dir"] == dir) return f;
  ADD_FAILURE() << "no fixture " << dir;
  return {};
}

nlohmann::json fusion_manifest() {
  std::ifstream in(testing::fixture_dir() + "/fusion/manifest.json");
  return nlohmann::json::parse(in);
}

/// Runs fused and unfused; both match torch, they agree within 1e-5; returns the fused run.
FusionRun expect_fused_matches(const std::string& root, const nlohmann::json& f) {
  const std::string dir = root + "/" + f["dir"].get<std::string>();
  FusionRun fused = run_fixture(dir, f, true);
  FusionRun plain = run_fixture(dir, f, false);
  const auto expected = read_all(dir, f["outputs"]);
  EXPECT_EQ(plain.groups, 0u);
  EXPECT_EQ(fused.outputs.size(), expected.size());
  EXPECT_EQ(plain.outputs.size(), expected.size());
  for (size_t k = 0; k < expected.size() && k < fused.outputs.size() && k < plain.outputs.size();
       ++k) {
    EXPECT_TRUE(
        testing::all_close(fused.outputs[k].view(), expected[k].view(), f["rtol"], f["atol"]))
        << "fused output " << k;
    EXPECT_TRUE(testing::all_close(fused.outputs[k].view(), plain.outputs[k].view(), 1e-5, 1e-5))
        << "fused vs unfused output " << k;
  }
  if (fused.groups > 0) EXPECT_LT(fused.calls, plain.calls);
  return fused;
}

struct FamilyCase {
  std::string dir;
  size_t min_groups;
};

class FusionFamily : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(FusionFamily, FusesAndMatchesUnfused) {
  const nlohmann::json f = find_fixture(testing::manifest(), GetParam().dir);
  const FusionRun fused = expect_fused_matches(testing::fixture_dir(), f);
  EXPECT_GE(fused.groups, GetParam().min_groups);
}

// GPT-2: NewGELU's 8-node chain after each MLP addmm (2 layers); BERT: gelu after each
// intermediate linear/addmm; MobileNetV3: the SE block's conv + relu and conv + hardsigmoid
// (decomposed in the core IR). ResNet has batch-norm between every conv and its relu, which
// is not folded: nothing fuses, outputs must still agree.
INSTANTIATE_TEST_SUITE_P(
    Families, FusionFamily,
    ::testing::Values(FamilyCase{"gpt2/training", 2}, FamilyCase{"gpt2/core", 2},
                      FamilyCase{"bert/training", 2}, FamilyCase{"bert/core", 2},
                      FamilyCase{"mobilenet_v3_small/training", 18},
                      FamilyCase{"mobilenet_v3_small/core", 18},
                      FamilyCase{"resnet_small/training", 0}, FamilyCase{"resnet_small/core", 0}),
    [](const auto& info) {
      std::string n = info.param.dir;
      for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

TEST(Fusion, EveryActivationKindMatchesTorch) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dialect : {"training", "core"}) {
    SCOPED_TRACE(dialect);
    const nlohmann::json f = find_fixture(m, std::string("activations/") + dialect);
    // silu, sigmoid, tanh, gelu(tanh) after linear; hardswish, hardsigmoid, relu after conv;
    // relu after mm (core IR; the training IR's aten::matmul is not a fusable producer)
    const size_t want = std::string(dialect) == "core" ? 8 : 7;
    EXPECT_EQ(expect_fused_matches(testing::fixture_dir() + "/fusion", f).groups, want);
  }
}

TEST(Fusion, NotFusedWhenAnIntermediateEscapes) {
  const nlohmann::json m = fusion_manifest();
  for (const char* dir : {"escape/training", "escape/core", "shared/training", "shared/core"}) {
    SCOPED_TRACE(dir);
    EXPECT_EQ(expect_fused_matches(testing::fixture_dir() + "/fusion", find_fixture(m, dir)).groups,
              0u);
  }
}

TEST(Fusion, ProfileNamesTheEpilogue) {
  const std::string dir = testing::fixture_dir() + "/gpt2/core";
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  Profiler profiler;
  ASSERT_TRUE((*session)->set_profiler(&profiler).ok());
  const auto f = find_fixture(testing::manifest(), "gpt2/core");
  const auto inputs = read_all(dir, f["inputs"]);
  ASSERT_TRUE((*session)->run(views(inputs)).ok());
  size_t fused = 0;
  for (const ProfileEvent& e : profiler.events()) {
    fused += e.op == "aten::addmm+gelu_tanh";
    EXPECT_NE(e.op, "aten::tanh") << "a fused node ran on its own";
  }
  EXPECT_EQ(fused, 2u);
  ASSERT_TRUE((*session)->set_profiler(nullptr).ok());
}

TEST(Fusion, WeightSwapRepreparesFusedNodes) {
  const nlohmann::json f = find_fixture(fusion_manifest(), "activations/core");
  const std::string dir = testing::fixture_dir() + "/fusion/activations/core";
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  const auto inputs = read_all(dir, f["inputs"]);
  const auto expected = read_all(dir, f["outputs"]);
  ASSERT_TRUE((*session)->run(views(inputs)).ok());
  // The same values at new addresses: every fused conv re-prepares (repacks its weights).
  auto again = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_TRUE((*session)->swap_weights(std::move(*again)).ok());
  auto outputs = (*session)->run(views(inputs));
  ASSERT_TRUE(outputs.ok()) << outputs.status().message();
  EXPECT_EQ((*session)->num_fused_groups(), 8u);
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_TRUE(testing::all_close((*outputs)[k], expected[k].view(), f["rtol"], f["atol"]));
}

}  // namespace
}  // namespace tir
