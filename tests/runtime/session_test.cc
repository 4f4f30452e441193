// The C++ API end to end: import each real torch fixture with the importer library, open a
// Session on it, run, and compare with torch eager's outputs.
#include "runtime/exec/session.h"

#include <gtest/gtest.h>

#include <thread>

#include "ir/model.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/weights/weight_binding.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

using testing::import_fixture;
using testing::read_all;
using testing::views;

class FixtureSession : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(FixtureSession, MatchesTorchEagerAndIsRepeatable) {
  const nlohmann::json& f = GetParam();
  const std::string dir = testing::fixture_dir() + "/" + f["dir"].get<std::string>();
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  ASSERT_EQ((*session)->inputs().size(), f["inputs"].size());
  for (size_t k = 0; k < f["inputs"].size(); ++k)
    EXPECT_EQ((*session)->inputs()[k].name, f["inputs"][k]["name"].get<std::string>());

  const auto expected = read_all(dir, f["outputs"]);
  for (int round = 0; round < 2; ++round) {  // the second run reuses the cached plan
    // Read afresh: a program may write its inputs (fixtures/arch_mutation), as torch's would.
    const auto inputs = read_all(dir, f["inputs"]);
    auto outputs = (*session)->run(views(inputs));
    ASSERT_TRUE(outputs.ok()) << outputs.status().message();
    ASSERT_EQ(outputs->size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k)
      EXPECT_TRUE(testing::all_close((*outputs)[k], expected[k].view(), f["rtol"], f["atol"]))
          << "output " << k << " round " << round;
  }
  EXPECT_GT((*session)->num_nodes(), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, FixtureSession,
                         ::testing::ValuesIn(testing::runnable_fixtures()), testing::FixtureName());

// Programs whose buffer changes run by run (fixtures/arch_recurrent, gen_arch_recurrent.py's
// STATE_RUNS): a buffer written through views twice per run (the training IR's select +
// copy_), and copies of a buffer (repeat, cat, roll, flip) made before an in-place update and
// read after it. Each run must read the state the run before left, as torch's successive
// calls of one module do; a copy must keep the values it was made from.
class StateRuns : public ::testing::TestWithParam<const char*> {};

TEST_P(StateRuns, MatchTorchRunByRun) {
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/arch_recurrent/" + GetParam();
  ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_TRUE(session.ok()) << session.status().message();
  nlohmann::json files = nlohmann::json::array();
  for (size_t k = 0; k < (*session)->inputs().size(); ++k)
    files.push_back({{"file", "input_" + std::to_string(k) + ".npy"}});
  const auto inputs = read_all(dir, files);
  for (int run = 0; run < 3; ++run) {
    auto outputs = (*session)->run(views(inputs));
    ASSERT_TRUE(outputs.ok()) << outputs.status().message();
    for (size_t j = 0; j < outputs->size(); ++j) {
      const std::string want = "run_" + std::to_string(run) + "_" + std::to_string(j) + ".npy";
      const auto expected = read_all(dir, {{{"file", want}}});
      EXPECT_TRUE(testing::all_close((*outputs)[j], expected[0].view(), 1e-6, 1e-6)) << want;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ArchRecurrent, StateRuns,
                         ::testing::Values("buffer_runs/training", "buffer_runs/core",
                                           "buffer_copy_runs/training", "buffer_copy_runs/core",
                                           "parameter_rescale/training", "parameter_rescale/core",
                                           "rwkv_rescaled/training", "rwkv_rescaled/core"),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

TEST(Session, TwoSessionsShareOneWeightSet) {
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/mlp/core";
  ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
  auto weights = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(weights.ok()) << weights.status().message();
  auto model = data_source_mmap(tmp.file("m.tir"));
  ASSERT_TRUE(model.ok());
  auto a = Session::create(*model, *weights);
  auto b = Session::create(*model, *weights);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->weights().get(), (*b)->weights().get());
  const auto in = read_all(dir, {{{"file", "input_0.npy"}}});
  auto oa = (*a)->run(views(in));
  auto ob = (*b)->run(views(in));
  ASSERT_TRUE(oa.ok() && ob.ok());
  EXPECT_TRUE(testing::all_close((*oa)[0], (*ob)[0], 0, 0));
}

TEST(Session, UnknownMethodAndBadInputsAreErrors) {
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/sincos/core";
  ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
  SessionOptions o;
  o.method = "decode";
  auto bad = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("no method 'decode'"), std::string::npos);

  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"));
  ASSERT_TRUE(session.ok());
  const auto in = read_all(dir, {{{"file", "input_0.npy"}}});
  auto r = (*session)->run(views(in));  // one input of two
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("expected 2 inputs"), std::string::npos);
}

/// `m` and its cond branches, theirs included: the methods lowering `m` lowers.
size_t methods_in(const ir::fb::Method& m) {
  size_t n = 1;
  if (m.subgraphs())
    for (const ir::fb::Method* sub : *m.subgraphs()) n += methods_in(*sub);
  return n;
}

// A session lowers its method, cond branches included, and checks its weight set once, at
// open: the threads that run it afterwards share that program (runtime/exec/lowered_method.h) and
// trust that check. A swap checks the new set once, not once per thread.
TEST(Session, ThreadsShareOneLoweringAndOneWeightCheck) {
  const std::string rel = "cond_true/core";
  const nlohmann::json manifest = testing::manifest();
  const nlohmann::json* f = nullptr;
  for (const auto& e : manifest["fixtures"])
    if (e["dir"] == rel) f = &e;
  ASSERT_NE(f, nullptr);
  const std::string dir = testing::fixture_dir() + "/" + rel;
  TempDir tmp;
  ASSERT_NO_FATAL_FAILURE(import_fixture(dir, tmp));
  auto model = data_source_mmap(tmp.file("m.tir"));
  auto weights = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(model.ok() && weights.ok());

  const uint64_t lowered = exec_graph_lower_count(), checked = check_weights_count();
  auto s = Session::create(*model, *weights);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Session& session = **s;
  auto view = ir::ModelView::open((*model)->bytes(), (*model)->name());
  ASSERT_TRUE(view.ok() && view->method("forward"));
  const uint64_t lowered_at_open = methods_in(*view->method("forward"));
  EXPECT_GE(lowered_at_open, 3u);  // forward and its two branches
  EXPECT_EQ(exec_graph_lower_count() - lowered, lowered_at_open);
  EXPECT_EQ(check_weights_count() - checked, 1u);

  const auto inputs = read_all(dir, (*f)["inputs"]);
  const auto expected = read_all(dir, (*f)["outputs"]);
  const auto run = [&] {
    auto out = session.run(views(inputs));
    ASSERT_TRUE(out.ok()) << out.status().message();
    ASSERT_EQ(out->size(), expected.size());
    for (size_t k = 0; k < expected.size(); ++k)
      EXPECT_TRUE(testing::all_close((*out)[k], expected[k].view(), (*f)["rtol"], (*f)["atol"]));
  };
  const auto run_here_and_on_two_threads = [&] {
    run();
    std::thread second(run), third(run);
    second.join();
    third.join();
  };
  run_here_and_on_two_threads();
  EXPECT_EQ(exec_graph_lower_count() - lowered, lowered_at_open);
  EXPECT_EQ(check_weights_count() - checked, 1u);

  ASSERT_TRUE(session.swap_weights(*weights).ok());
  EXPECT_EQ(check_weights_count() - checked, 2u);
  run_here_and_on_two_threads();  // every context rebinds, none checks again
  EXPECT_EQ(exec_graph_lower_count() - lowered, lowered_at_open);
  EXPECT_EQ(check_weights_count() - checked, 2u);
}

TEST(Session, MissingFilesAreNamed) {
  auto s = Session::open("/nonexistent/m.tir", "/nonexistent/m.bin");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
  EXPECT_NE(s.status().message().find("/nonexistent/m.tir"), std::string::npos);
}

}  // namespace
}  // namespace tir
