// The partitioner's dynamic program against brute force over every cut on a real fixture
// (GPT-2, imported by tirc): same slowest-stage cost, caps respected, no cut inside a fused
// group or across a non-tensor value.
#include "tooling/partition/partition.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "ir/model.h"
#include "runtime/weights/data_loader.h"
#include "tests/common/cli_util.h"

namespace tir::tools {
namespace {

using testing::q;
using testing::TempDir;

struct Loaded {
  std::shared_ptr<const DataSource> bytes;
  std::unique_ptr<ir::ModelView> view;
  GraphCost g;
  std::vector<double> seconds;
  std::vector<std::pair<size_t, size_t>> spans;
};

void load(const TempDir& tmp, const std::string& fixture, Loaded* out) {
  const std::string pt2 = testing::fixture_dir() + "/" + fixture + "/program.pt2";
  ASSERT_EQ(testing::tirc("import " + q(pt2) + " -o " + q(tmp.file("m.tir")) + " --weights " +
                          q(tmp.file("m.bin")))
                .code,
            0);
  auto bytes = data_source_mmap(tmp.file("m.tir"));
  ASSERT_TRUE(bytes.ok());
  out->bytes = *bytes;
  auto view = ir::ModelView::open(out->bytes->bytes(), "m.tir");
  ASSERT_TRUE(view.ok());
  out->view = std::make_unique<ir::ModelView>(*view);
  const ir::fb::Method* m = out->view->method("forward");
  ASSERT_NE(m, nullptr);
  auto g = graph_cost(*out->view, *m);
  ASSERT_TRUE(g.ok()) << g.status().message();
  out->g = std::move(*g);
  auto s = partition_node_seconds(out->g, "");
  ASSERT_TRUE(s.ok());
  out->seconds = *s;
  auto spans = partition_fused_spans(*out->view, *m);
  ASSERT_TRUE(spans.ok());
  out->spans = *spans;
}

/// Independent of the DP: bytes live across cut c, and whether c may be cut.
double boundary(const GraphCost& g, size_t c) {
  double b = 0;
  for (size_t v = 0; v < g.producer.size(); ++v) {
    const auto src = g.method->values()->Get(v)->source();
    const bool before =
        g.producer[v] >= 0 ? size_t(g.producer[v]) < c : src == ir::fb::ValueSource::UserInput;
    if (before && g.last_use[v] >= int32_t(c)) b += double(g.value_bytes[v]);
  }
  return b;
}

bool cuttable(const Loaded& l, size_t c) {
  for (const auto& [lo, hi] : l.spans)
    if (c > lo && c <= hi) return false;
  for (size_t v = 0; v < l.g.producer.size(); ++v) {
    const ir::fb::Value& value = *l.g.method->values()->Get(v);
    const bool before = l.g.producer[v] >= 0 ? size_t(l.g.producer[v]) < c
                                             : value.source() == ir::fb::ValueSource::UserInput;
    if (before && l.g.last_use[v] >= int32_t(c) && value.kind() != ir::fb::ValueKind::Tensor)
      return false;
  }
  return true;
}

uint64_t stage_weights(const GraphCost& g, size_t a, size_t b) {
  std::vector<int32_t> ws;
  for (size_t i = a; i < b; ++i) ws.insert(ws.end(), g.weights[i].begin(), g.weights[i].end());
  std::sort(ws.begin(), ws.end());
  ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
  uint64_t s = 0;
  for (int32_t w : ws) s += g.weight_bytes[w];
  return s;
}

double stage_cost(const Loaded& l, size_t a, size_t b, double bw) {
  double t = 0;
  for (size_t i = a; i < b; ++i) t += l.seconds[i];
  return t + (a == 0 ? 0 : boundary(l.g, a) / bw);
}

/// The best slowest-stage cost over every pair of cuts (3 stages), brute force.
double brute_force_3(const Loaded& l, double bw, uint64_t cap) {
  const size_t n = l.g.num_nodes;
  double best = std::numeric_limits<double>::infinity();
  for (size_t c1 = 1; c1 < n; ++c1) {
    if (!cuttable(l, c1) || stage_weights(l.g, 0, c1) > cap) continue;
    const double s0 = stage_cost(l, 0, c1, bw);
    for (size_t c2 = c1 + 1; c2 < n; ++c2) {
      if (!cuttable(l, c2) || stage_weights(l.g, c1, c2) > cap || stage_weights(l.g, c2, n) > cap)
        continue;
      best = std::min(best, std::max({s0, stage_cost(l, c1, c2, bw), stage_cost(l, c2, n, bw)}));
    }
  }
  return best;
}

TEST(PartitionPlan, DynamicProgramMatchesBruteForceOnGpt2) {
  TempDir tmp;
  Loaded l;
  load(tmp, "gpt2/training", &l);
  if (HasFatalFailure()) return;
  EXPECT_FALSE(l.spans.empty()) << "GPT-2's addmm + GELU groups are fused";
  for (uint64_t cap : {uint64_t(0), stage_weights(l.g, 0, l.g.num_nodes) / 2}) {
    PartitionOptions o;
    o.stages = 3;
    o.bandwidth_gbps = 0.001;  // slow links: boundary bytes weigh as much as compute
    o.memory_cap_bytes = cap;
    o.fused_spans = l.spans;
    auto plan = partition_plan(l.g, l.seconds, o);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    ASSERT_EQ(plan->stages.size(), 3u);
    const double bw = o.bandwidth_gbps * 1e9;
    double worst = 0;
    for (const StageInfo& s : plan->stages) {
      EXPECT_LT(s.first_node, s.end_node);
      if (s.first_node > 0) EXPECT_TRUE(cuttable(l, s.first_node)) << s.first_node;
      if (cap) EXPECT_LE(s.weight_bytes, cap);
      EXPECT_EQ(s.weight_bytes, stage_weights(l.g, s.first_node, s.end_node));
      worst = std::max(worst, stage_cost(l, s.first_node, s.end_node, bw));
      EXPECT_NEAR(s.predicted_ms, stage_cost(l, s.first_node, s.end_node, bw) * 1e3, 1e-6);
    }
    EXPECT_EQ(plan->stages.front().first_node, 0u);
    EXPECT_EQ(plan->stages.back().end_node, l.g.num_nodes);
    const double best = brute_force_3(l, bw, cap ? cap : UINT64_MAX);
    EXPECT_NEAR(worst, best, 1e-12 + 1e-9 * best) << "cap " << cap;
  }
}

TEST(PartitionPlan, CapBelowTheLargestNodeIsAnError) {
  TempDir tmp;
  Loaded l;
  load(tmp, "gpt2/training", &l);
  if (HasFatalFailure()) return;
  PartitionOptions o;
  o.stages = 2;
  o.memory_cap_bytes = 1;
  auto plan = partition_plan(l.g, l.seconds, o);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("--memory-cap"), std::string::npos);
}

}  // namespace
}  // namespace tir::tools
