#include "tooling/partition/partition.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <ostream>
#include <sstream>

#include "core/atomic_file.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/passes/fusion.h"
#include "runtime/weights/data_loader.h"
#include "tooling/partition/layer_profile_csv.h"

namespace tir::tools {
namespace {

using ir::fb::ValueSource;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Values live across cut `c` (between node c-1 and node c): produced before c (or a user
/// input) and read at or after c (or a method output). Weights and constants never cross:
/// every stage binds its own.
std::vector<int32_t> crossing(const GraphCost& g, size_t c) {
  std::vector<int32_t> out;
  const auto* values = g.method->values();
  for (size_t v = 0; v < g.producer.size(); ++v) {
    const ValueSource src = values->Get(v)->source();
    const bool before =
        g.producer[v] >= 0 ? size_t(g.producer[v]) < c : src == ValueSource::UserInput;
    if (before && g.last_use[v] >= int32_t(c)) out.push_back(int32_t(v));
  }
  return out;
}

}  // namespace

Result<std::vector<std::pair<size_t, size_t>>> partition_fused_spans(const ir::ModelView& model,
                                                                     const ir::fb::Method& method) {
  TIR_ASSIGN_OR_RETURN(ExecGraph graph, exec_graph_lower(model, method));
  // Every GEMM/convolution counts as accepting an epilogue (the CPU kernels do), so a span is
  // never smaller than the group a session forms.
  const auto accepts = [](int32_t) { return true; };
  const auto frozen = [&](int32_t v) {
    const ValueSource src = method.values()->Get(v)->source();
    return src == ValueSource::Weight || src == ValueSource::Constant;
  };
  std::vector<std::pair<size_t, size_t>> spans;
  // ExecGraph node k came from the method's node graph.nodes[k].index.
  const auto source = [&](int32_t k) { return size_t(graph.nodes[size_t(k)].index); };
  for (const FusedGroup& grp :
       fusion_find_groups(graph, exec_graph_def_use(graph), accepts, frozen)) {
    size_t lo = source(grp.producer), hi = lo;
    for (int32_t i : grp.absorbed) {
      lo = std::min(lo, source(i));
      hi = std::max(hi, source(i));
    }
    if (grp.position >= 0) hi = std::max(hi, source(grp.position));
    spans.emplace_back(lo, hi);
  }
  return spans;
}

Result<std::vector<double>> partition_node_seconds(const GraphCost& g,
                                                   const std::string& profile_path) {
  std::vector<double> s(g.num_nodes);
  for (size_t i = 0; i < g.num_nodes; ++i) s[i] = g.estimate[i].seconds;
  if (profile_path.empty()) return s;
  TIR_ASSIGN_OR_RETURN(LayerProfileTable table, layer_profile_read(profile_path));
  // Each profiled module's median time, shared among its nodes by their estimates.
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < g.num_nodes; ++i)
    members[module_prefix(ir::str(g.method->nodes()->Get(i)->module_path()), table.depth)]
        .push_back(i);
  size_t matched = 0;
  for (const LayerProfileRow& row : table.rows) {
    auto it = members.find(row.module);
    if (it == members.end()) continue;
    ++matched;
    double sum = 0;
    for (size_t i : it->second) sum += g.estimate[i].seconds;
    for (size_t i : it->second)
      s[i] = row.median_ms * 1e-3 *
             (sum > 0 ? g.estimate[i].seconds / sum : 1.0 / double(it->second.size()));
  }
  if (matched == 0)
    return make_error(StatusCode::kInvalidArgument, "profile '", profile_path,
                      "' names no module of method '", ir::str(g.method->name()),
                      "' (was it measured on another model?)");
  return s;
}

Result<PartitionPlan> partition_plan(const GraphCost& g, const std::vector<double>& seconds,
                                     const PartitionOptions& o) {
  const size_t n = g.num_nodes, stages = size_t(std::max(o.stages, 0));
  const std::string method(ir::str(g.method->name()));
  if (o.stages < 1)
    return make_error(StatusCode::kInvalidArgument, "--stages must be at least 1, got ", o.stages);
  if (stages > n)
    return make_error(StatusCode::kInvalidArgument, "cannot cut method '", method, "' into ",
                      stages, " stages: it has only ", n, " nodes");
  if (!(o.bandwidth_gbps > 0))
    return make_error(StatusCode::kInvalidArgument, "--bandwidth must be positive, got ",
                      o.bandwidth_gbps);
  // Boundary bytes and whether a cut is allowed, for every cut 0..n, by difference arrays.
  std::vector<double> bytes_diff(n + 2, 0);
  std::vector<int> bad_diff(n + 2, 0);
  const auto* values = g.method->values();
  for (size_t v = 0; v < g.producer.size(); ++v) {
    const ir::fb::Value& value = *values->Get(v);
    const bool input = value.source() == ValueSource::UserInput;
    if (g.producer[v] < 0 && !input) continue;
    const size_t first = g.producer[v] >= 0 ? size_t(g.producer[v]) + 1 : 0;
    if (g.last_use[v] < int32_t(first)) continue;
    const size_t last = size_t(g.last_use[v]);  // crosses cuts first..last
    bytes_diff[first] += double(g.value_bytes[v]);
    bytes_diff[last + 1] -= double(g.value_bytes[v]);
    if (value.kind() != ir::fb::ValueKind::Tensor) {
      ++bad_diff[first];
      --bad_diff[last + 1];
    }
  }
  for (const auto& [lo, hi] : o.fused_spans)  // cuts lo+1..hi split a fused group
    if (hi > lo && hi <= n) {
      ++bad_diff[lo + 1];
      --bad_diff[hi + 1];
    }
  std::vector<double> boundary(n + 1, 0);
  std::vector<bool> allowed(n + 1, false);
  double acc = 0;
  int bad = 0;
  for (size_t c = 0; c <= n; ++c) {
    acc += bytes_diff[c];
    bad += bad_diff[c];
    boundary[c] = c == 0 ? 0 : acc;
    allowed[c] = bad == 0 || c == 0 || c == n;
  }
  const size_t num_allowed = size_t(std::count(allowed.begin() + 1, allowed.end() - 1, true));
  if (stages - 1 > num_allowed)
    return make_error(StatusCode::kInvalidArgument, "cannot cut method '", method, "' into ",
                      stages, " stages: only ", num_allowed,
                      " places between its nodes have only tensors crossing them outside a "
                      "fused group");
  const double bw = o.bandwidth_gbps * 1e9;
  const uint64_t cap = o.memory_cap_bytes ? o.memory_cap_bytes : UINT64_MAX;
  // best[k][i]: the smallest slowest-stage cost of nodes [0, i) in k stages; from[k][i]: the
  // start of the last of them.
  std::vector<std::vector<double>> best(stages + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<size_t>> from(stages + 1, std::vector<size_t>(n + 1, 0));
  best[0][0] = 0;
  std::vector<uint32_t> stamp(g.weight_bytes.size(), 0);
  uint32_t epoch = 0;
  for (size_t k = 1; k <= stages; ++k)
    for (size_t j = 0; j < n; ++j) {
      if (best[k - 1][j] == kInf || !allowed[j]) continue;
      ++epoch;
      double compute = 0;
      uint64_t weight = 0;
      for (size_t i = j + 1; i <= n; ++i) {
        compute += seconds[i - 1];
        for (int32_t w : g.weights[i - 1])
          if (size_t(w) < stamp.size() && stamp[w] != epoch) {
            stamp[w] = epoch;
            weight += g.weight_bytes[w];
          }
        if (weight > cap) break;
        if (!allowed[i]) continue;
        const double cost = std::max(best[k - 1][j], compute + boundary[j] / bw);
        if (cost < best[k][i]) {
          best[k][i] = cost;
          from[k][i] = j;
        }
      }
    }
  if (best[stages][n] == kInf) {
    uint64_t largest = 0;
    for (size_t i = 0; i < n; ++i) {
      uint64_t b = 0;
      for (int32_t w : g.weights[i])
        if (size_t(w) < g.weight_bytes.size()) b += g.weight_bytes[w];
      largest = std::max(largest, b);
    }
    return make_error(StatusCode::kInvalidArgument, "no cut of method '", method, "' into ", stages,
                      " stages keeps every stage's weights within --memory-cap ",
                      o.memory_cap_bytes, " bytes (the largest node alone reads ", largest,
                      " bytes of weights)");
  }
  PartitionPlan plan;
  plan.from_profile = false;
  plan.stages.resize(stages);
  for (size_t k = stages, i = n; k > 0; --k) {
    StageInfo& s = plan.stages[k - 1];
    s.first_node = from[k][i];
    s.end_node = i;
    i = s.first_node;
  }
  for (size_t k = 0; k < stages; ++k) {
    StageInfo& s = plan.stages[k];
    std::vector<int32_t> ws;
    for (size_t i = s.first_node; i < s.end_node; ++i) {
      s.compute_ms += seconds[i] * 1e3;
      ws.insert(ws.end(), g.weights[i].begin(), g.weights[i].end());
    }
    std::sort(ws.begin(), ws.end());
    ws.erase(std::unique(ws.begin(), ws.end()), ws.end());
    for (int32_t w : ws)
      if (size_t(w) < g.weight_bytes.size()) s.weight_bytes += g.weight_bytes[w];
    if (k == 0) {
      if (g.method->inputs())
        s.inputs.assign(g.method->inputs()->begin(), g.method->inputs()->end());
    } else {
      s.inputs = crossing(g, s.first_node);
    }
    if (k + 1 == stages) {
      if (g.method->outputs())
        s.outputs.assign(g.method->outputs()->begin(), g.method->outputs()->end());
    } else {
      s.outputs = crossing(g, s.end_node);
    }
    for (int32_t v : s.inputs) s.in_bytes += k == 0 ? 0 : g.value_bytes[v];
    for (int32_t v : s.outputs) s.out_bytes += g.value_bytes[v];
    s.predicted_ms = s.compute_ms + double(s.in_bytes) / bw * 1e3;
  }
  return plan;
}

}  // namespace tir::tools
