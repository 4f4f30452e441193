// The per-node profiler: profile real torch fixtures through the Session API and check the
// Chrome trace (valid JSON, one event per executed node and run, durations >= 0, module
// paths from the IR) and that the op / module tables sum exactly what the events hold.
#include "runtime/exec/profiler.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "importer/import_pt2.h"
#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"
#include "tests/common/test_util.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

struct Loaded {
  std::unique_ptr<Session> session;
  std::vector<HostTensor> inputs;
  std::vector<Tensor> views;
};

/// Imports fixture `name` (training dialect) and opens a Session with its inputs read.
void load_fixture(const std::string& name, const TempDir& tmp, Loaded* out) {
  const std::string dir = testing::fixture_dir() + "/" + name + "/training";
  ASSERT_TRUE(testing::import_fixture(dir, tmp));
  SessionOptions options;
  options.fuse = false;  // one event per node (fused groups: tests/runtime/fusion_test.cc)
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), options);
  ASSERT_TRUE(session.ok()) << session.status().message();
  out->session = std::move(session).value();
  for (size_t k = 0; k < out->session->inputs().size(); ++k) {
    auto t = npy_read(dir + "/input_" + std::to_string(k) + ".npy");
    ASSERT_TRUE(t.ok()) << t.status().message();
    out->inputs.push_back(std::move(t).value());
  }
  for (const HostTensor& h : out->inputs) out->views.push_back(h.view());
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);  // throws (fails the test) on malformed JSON
}

class ProfiledFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ProfiledFixture, TraceHasOneEventPerNodeRunAndTablesMatchEvents) {
  TempDir tmp;
  Loaded m;
  ASSERT_NO_FATAL_FAILURE(load_fixture(GetParam(), tmp, &m));
  ASSERT_TRUE(m.session->run(m.views).ok());  // not profiled: records nothing

  Profiler profiler;
  ASSERT_TRUE(m.session->set_profiler(&profiler).ok());
  constexpr int kRuns = 3;
  for (int r = 0; r < kRuns; ++r) ASSERT_TRUE(m.session->run(m.views).ok());
  ASSERT_TRUE(m.session->set_profiler(nullptr).ok());
  ASSERT_TRUE(m.session->run(m.views).ok());  // unset again: records nothing

  // One event per step the executor runs: the lowered graph's nodes (the program's, less
  // those fused away, plus the casts that type promotion inserts).
  const size_t nodes = m.session->exec_graph().nodes.size();
  ASSERT_GT(nodes, 0u);
  EXPECT_EQ(profiler.num_runs(), kRuns);
  ASSERT_EQ(profiler.events().size(), kRuns * nodes);
  EXPECT_GT(profiler.run_ms(), 0.0);
  EXPECT_LE(profiler.node_ms(), profiler.run_ms());

  ASSERT_TRUE(profiler.write_chrome_trace(tmp.file("trace.json")).ok());
  const nlohmann::json trace = read_json(tmp.file("trace.json"));
  const auto& events = trace.at("traceEvents");
  ASSERT_EQ(events.size(), kRuns * nodes);

  std::map<std::string, double> op_us, module_us;
  std::map<std::string, int64_t> op_calls;
  std::set<std::pair<int, int>> seen;  // (run, node index)
  bool any_module = false;
  double prev_end = -1;
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    EXPECT_EQ(e.at("ph"), "X");
    const double ts = e.at("ts"), dur = e.at("dur");
    EXPECT_GE(dur, 0.0) << "event " << i;
    EXPECT_GE(ts, prev_end - 1e-3) << "events overlap at " << i;  // nodes run one after another
    prev_end = ts + dur;
    const std::string op = e.at("cat"), module = e.at("args").at("module");
    EXPECT_EQ(op.rfind("aten::", 0), 0u) << op;
    EXPECT_EQ(e.at("name"), std::string(profiler.events()[i].node));
    any_module |= !module.empty();
    EXPECT_GE(e.at("args").at("bytes").get<int64_t>(), 0);
    EXPECT_EQ(e.at("args").at("shape").get<std::string>().front(), '[');
    const std::pair<int, int> key{e.at("args").at("run"), e.at("args").at("node_index")};
    EXPECT_TRUE(seen.insert(key).second) << "node recorded twice in one run: " << e.dump();
    op_us[op] += dur;
    module_us[module.empty() ? "(top level)" : module] += dur;
    ++op_calls[op];
  }
  EXPECT_EQ(seen.size(), kRuns * nodes);  // every (run, node) once
  EXPECT_TRUE(any_module) << "no event carries an nn_module_stack path";

  // Tables against the parsed trace (the trace rounds to 1 ns per event).
  const double tol_ms = 1e-6 * double(events.size()) + 1e-9;
  const auto by_op = profiler.by_op();
  ASSERT_EQ(by_op.size(), op_us.size());
  int64_t calls = 0;
  for (size_t i = 0; i < by_op.size(); ++i) {
    if (i > 0) EXPECT_GE(by_op[i - 1].total_ms, by_op[i].total_ms) << "not sorted";
    EXPECT_NEAR(by_op[i].total_ms, op_us.at(by_op[i].key) / 1000.0, tol_ms) << by_op[i].key;
    EXPECT_EQ(by_op[i].calls, op_calls.at(by_op[i].key)) << by_op[i].key;
    calls += by_op[i].calls;
  }
  EXPECT_EQ(calls, int64_t(kRuns * nodes));
  const auto by_module = profiler.by_module();
  ASSERT_EQ(by_module.size(), module_us.size());
  for (const ProfileRow& r : by_module)
    EXPECT_NEAR(r.total_ms, module_us.at(r.key) / 1000.0, tol_ms) << r.key;

  std::ostringstream table;
  profiler.print_tables(table, 5);
  EXPECT_NE(table.str().find(by_op.front().key), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("module path"), std::string::npos) << table.str();
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ProfiledFixture,
                         ::testing::Values("gpt2", "resnet_small", "bert"));

TEST(Profiler, ClearDropsEventsAndTraceOfNothingIsValidJson) {
  TempDir tmp;
  Loaded m;
  ASSERT_NO_FATAL_FAILURE(load_fixture("mlp", tmp, &m));
  Profiler profiler;
  ASSERT_TRUE(m.session->set_profiler(&profiler).ok());
  ASSERT_TRUE(m.session->run(m.views).ok());
  EXPECT_EQ(profiler.events().size(), m.session->num_nodes());
  profiler.clear();
  EXPECT_TRUE(profiler.events().empty());
  EXPECT_EQ(profiler.num_runs(), 0);
  EXPECT_EQ(nlohmann::json::parse(profiler.chrome_trace()).at("traceEvents").size(), 0u);
  ASSERT_TRUE(m.session->set_profiler(nullptr).ok());
}

TEST(Profiler, TraceToAnUnwritablePathFailsAndLeavesNothing) {
  TempDir tmp;
  Profiler profiler;
  const Status s = profiler.write_chrome_trace(tmp.file("no/such/dir/trace.json"));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("trace.json"), std::string::npos) << s.message();
  EXPECT_EQ(tmp.num_entries(), 0u);
}

}  // namespace
}  // namespace tir
