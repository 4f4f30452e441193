#include "tooling/run/layer_profile.h"

#include <algorithm>
#include <map>

#include "tooling/partition/graph_cost.h"

namespace tir::tools {

Result<LayerProfileTable> layer_profile_build(const ir::ModelView& model,
                                              const ir::fb::Method& method,
                                              const Profiler& profiler, int depth) {
  if (depth < 0) return make_error(StatusCode::kInvalidArgument, "--depth must be >= 0");
  if (profiler.num_runs() == 0)
    return make_error(StatusCode::kInvalidArgument, "layer profile: no profiled run");
  TIR_ASSIGN_OR_RETURN(GraphCost g, graph_cost(model, method));
  const size_t n = g.num_nodes, nv = g.producer.size();
  std::vector<std::string> module(n);
  std::map<std::string, size_t> row_of;
  LayerProfileTable t;
  t.depth = depth;
  for (size_t i = 0; i < n; ++i) {
    module[i] = module_prefix(ir::str(method.nodes()->Get(i)->module_path()), depth);
    if (row_of.emplace(module[i], t.rows.size()).second) t.rows.push_back({module[i]});
    ++t.rows[row_of[module[i]]].nodes;
  }
  // Time: per run, the summed kernel time of the module's events; then the median.
  std::vector<std::vector<double>> per_run(t.rows.size(),
                                           std::vector<double>(profiler.num_runs(), 0.0));
  for (const ProfileEvent& e : profiler.events()) {
    auto it = row_of.find(module_prefix(e.module_path, depth));
    if (it == row_of.end() || e.run < 0 || e.run >= profiler.num_runs()) continue;
    per_run[it->second][e.run] += e.dur_us * 1e-3;
  }
  for (size_t r = 0; r < t.rows.size(); ++r) {
    std::vector<double>& v = per_run[r];
    std::sort(v.begin(), v.end());
    t.rows[r].median_ms =
        v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  // Bytes from the IR: weights read, activations entering and leaving, live activations.
  const auto* values = method.values();
  const auto is_activation = [&](int32_t v) {
    const auto src = values->Get(v)->source();
    return src == ir::fb::ValueSource::Activation || src == ir::fb::ValueSource::UserInput;
  };
  std::vector<double> live_diff(n + 1, 0);
  for (size_t v = 0; v < nv; ++v) {
    if (!is_activation(int32_t(v)) || g.last_use[v] < 0) continue;
    const int32_t p = g.producer[v];
    if (p >= 0 && g.estimate[p].flops == 0 && g.estimate[p].bytes == 0) continue;  // a view
    const size_t first = p >= 0 ? size_t(p) : 0, last = std::min<size_t>(g.last_use[v], n - 1);
    if (last < first) continue;
    live_diff[first] += double(g.value_bytes[v]);
    live_diff[last + 1] -= double(g.value_bytes[v]);
  }
  std::vector<std::vector<int32_t>> weights(t.rows.size()), ins(t.rows.size());
  double live = 0;
  for (size_t i = 0; i < n; ++i) {
    live += live_diff[i];
    const size_t r = row_of[module[i]];
    LayerProfileRow& row = t.rows[r];
    row.peak_activation_bytes = std::max<uint64_t>(row.peak_activation_bytes, uint64_t(live));
    weights[r].insert(weights[r].end(), g.weights[i].begin(), g.weights[i].end());
    for (int32_t v : g.reads[i])
      if (is_activation(v) && (g.producer[v] < 0 || module[g.producer[v]] != module[i]))
        ins[r].push_back(v);
    for (int32_t v : *method.nodes()->Get(i)->outputs()) {
      bool leaves = g.last_use[v] == int32_t(n);
      for (size_t j = i + 1; !leaves && j < n && int32_t(j) <= g.last_use[v]; ++j)
        leaves =
            module[j] != module[i] && std::binary_search(g.reads[j].begin(), g.reads[j].end(), v);
      if (leaves) row.output_bytes += g.value_bytes[v];
    }
  }
  for (size_t r = 0; r < t.rows.size(); ++r) {
    for (auto* list : {&weights[r], &ins[r]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    for (int32_t w : weights[r])
      if (size_t(w) < g.weight_bytes.size()) t.rows[r].param_bytes += g.weight_bytes[w];
    for (int32_t v : ins[r]) t.rows[r].input_bytes += g.value_bytes[v];
  }
  return t;
}

}  // namespace tir::tools
