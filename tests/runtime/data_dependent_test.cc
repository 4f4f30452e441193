// Data-dependent scalars of every type (fixtures/arch_data_dependent, gen_arch_data_dependent.py):
// each program runs on inputs other than its export example, and must give torch's outputs for
// them, or fail where torch's exported program fails (a torch._check that does not hold).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime/fixture_session.h"

namespace tir::testing {
namespace {

class DataDependentRuns : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(DataDependentRuns, MatchTorchOnOtherInputs) {
  const nlohmann::json& f = GetParam();
  const std::string dir = fixture_dir() + "/" + f["dir"].get<std::string>();
  TempDir tmp;
  auto session = open_fixture(dir, tmp);
  ASSERT_TRUE(session.ok()) << session.status().message();
  ASSERT_FALSE(f["runs"].empty());
  // The export inputs first, then every other run, then the export inputs again: plans cached
  // for one binding must not leak into another.
  std::vector<std::pair<std::string, nlohmann::json>> runs = {{dir, f}};
  for (size_t k = 0; k < f["runs"].size(); ++k)
    runs.push_back({dir + "/runs/" + std::to_string(k), f["runs"][k]});
  runs.push_back({dir, f});
  for (const auto& [run_dir, run] : runs) {
    SCOPED_TRACE(run_dir);
    const std::vector<HostTensor> inputs = read_all(run_dir, run["inputs"]);
    auto outputs = (*session)->run(views(inputs));
    if (run.value("raises", false)) {
      EXPECT_FALSE(outputs.ok()) << "torch refuses these inputs: " << run["error"];
      if (!outputs.ok()) EXPECT_FALSE(outputs.status().message().empty());
      continue;
    }
    ASSERT_TRUE(outputs.ok()) << outputs.status().message();
    const std::vector<HostTensor> want = read_all(run_dir, run["outputs"]);
    ASSERT_EQ(outputs->size(), want.size());
    for (size_t k = 0; k < want.size(); ++k)
      EXPECT_TRUE(all_close((*outputs)[k], want[k].view(), f["rtol"], f["atol"])) << "output " << k;
  }
}

// `x.clamp(max=s.item())`: a float where the schema wants a number is refused with one line
// naming the node and the argument, never run with a wrong value.
TEST(DataDependentImport, FloatPassedAsANumberIsRefused) {
  TempDir tmp;
  importer::ImportOptions o;
  o.input = fixture_dir() + "/arch_data_dependent/float_as_number/training/program.pt2";
  o.model_path = tmp.file("m.tir");
  o.weights_path = tmp.file("m.bin");
  const auto summary = importer::import_pt2(o);
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), StatusCode::kUnsupported);
  const std::string& m = summary.status().message();
  EXPECT_NE(m.find("node 'clamp' argument 'max'"), std::string::npos) << m;
  EXPECT_NE(m.find(".item()"), std::string::npos) << m;
}

// `torch.nonzero` inside a torch.cond branch: refused at open with one line naming the node,
// never planned with an unbound size.
TEST(DataDependentImport, SizeFromDataInsideABranchIsRefusedAtOpen) {
  TempDir tmp;
  auto session = open_fixture(fixture_dir() + "/arch_data_dependent/cond_nonzero/training", tmp);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kUnsupported);
  const std::string& m = session.status().message();
  EXPECT_NE(m.find("nonzero"), std::string::npos) << m;
  EXPECT_NE(m.find("torch.cond branch"), std::string::npos) << m;
}

// VITS's durations from noise the forward draws (randn_like), whose sum sizes the output: the
// probe that binds the sizes runs the random node, and the run must draw the same values, or
// its sizes would not be the bound ones ("the value is 32 but the method was planned for
// 111") or its outputs would disagree with each other. Several runs (new draws each time), both
// dialects: w = ceil(exp(log_w + noise)), frames = h repeated w times, positions = arange(sum w).
TEST(DataDependentRandom, RunDrawsWhatTheProbeDrew) {
  for (const char* dialect : {"training", "core"}) {
    SCOPED_TRACE(dialect);
    TempDir tmp;
    SessionOptions o;
    o.seed = 5;
    auto session =
        open_fixture(fixture_dir() + "/arch_data_dependent/random_durations/" + dialect, tmp, o);
    ASSERT_TRUE(session.ok()) << session.status().message();
    const int64_t n = 5, d = 3;
    HostTensor log_w(DType::kFloat32, std::vector<int64_t>{n});
    HostTensor h(DType::kFloat32, std::vector<int64_t>{n, d});
    for (int64_t i = 0; i < n; ++i) log_w.data<float>()[i] = 0.3f * float(i) - 0.5f;
    for (int64_t i = 0; i < n * d; ++i) h.data<float>()[i] = float(i);
    std::vector<float> previous;
    int differing = 0;
    for (int run = 0; run < 6; ++run) {
      SCOPED_TRACE("run " + std::to_string(run));
      std::vector<Tensor> in = {log_w.view(), h.view()};
      auto out = (*session)->run(in);
      ASSERT_TRUE(out.ok()) << out.status().message();
      ASSERT_EQ(out->size(), 4u);
      const float* noise = (*out)[0].data_as<const float>();
      const float* w = (*out)[1].data_as<const float>();
      int64_t total = 0;
      for (int64_t i = 0; i < n; ++i) {
        EXPECT_EQ(w[i], std::ceil(std::exp(log_w.data<float>()[i] + noise[i]))) << i;
        total += int64_t(w[i]);
      }
      ASSERT_EQ((*out)[2].numel(), total * d);
      ASSERT_EQ((*out)[3].numel(), total);
      const float* frames = (*out)[2].data_as<const float>();
      for (int64_t i = 0, row = 0; i < n; ++i)
        for (int64_t r = 0; r < int64_t(w[i]); ++r, ++row)
          for (int64_t c = 0; c < d; ++c) ASSERT_EQ(frames[row * d + c], float(i * d + c));
      std::vector<float> now(noise, noise + n);
      differing += !previous.empty() && now != previous;
      previous = now;
    }
    EXPECT_GT(differing, 0) << "every run drew the same noise";
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DataDependentRuns,
                         ::testing::ValuesIn(sub_manifest("arch_data_dependent")), FixtureName());

}  // namespace
}  // namespace tir::testing
