#include "runtime/passes/layout.h"

#include <memory>
#include <vector>

namespace tir {

using kernels::ArgKind;

namespace {

// Which of a node's input slots its kernel reads channels-last (one per slot), and whether
// it may write outputs[0] so (it accepts some argument channels-last).
struct NodeLayout {
  std::vector<bool> slot_ok;
  bool writes = false;
};

NodeLayout node_layout(const ExecNode& n) {
  NodeLayout l;
  l.slot_ok.assign(n.inputs.size(), false);
  if (n.kind != StepKind::kKernel || !n.kernel) return l;
  const kernels::OpCaps caps = n.kernel->caps;
  // A slot no argument reads (a folded batch norm's tensor) is never channels-last; one that
  // several read must be accepted by all of them.
  std::vector<int> seen(n.inputs.size(), 0);
  std::vector<bool> ok(n.inputs.size(), true);
  const auto read = [&](int64_t slot, size_t arg) {
    if (slot < 0) return;
    ++seen[slot];
    const bool accepted = caps.accepts_channels_last(arg);
    l.writes = l.writes || accepted;
    ok[slot] = ok[slot] && accepted;
  };
  for (size_t a = 0; a < n.args.size(); ++a) {
    if (n.args[a].kind == ArgKind::kTensor) read(n.args[a].i, a);
    if (n.args[a].kind == ArgKind::kTensors)
      for (int64_t slot : n.args[a].ints) read(slot, a);
  }
  for (size_t s = 0; s < n.inputs.size(); ++s) l.slot_ok[s] = seen[s] > 0 && ok[s];
  if (n.residual >= 0 && l.writes) l.slot_ok[n.residual] = true;
  return l;
}

}  // namespace

size_t choose_channels_last(ExecGraph& g) { return choose_channels_last(g, exec_graph_def_use(g)); }

size_t choose_channels_last(ExecGraph& g, const DefUse& def_use) {
  const size_t nvalues = g.values.size();
  std::vector<NodeLayout> layouts;
  layouts.reserve(g.nodes.size());
  for (const ExecNode& n : g.nodes) layouts.push_back(n.dead ? NodeLayout{} : node_layout(n));
  std::vector<bool> chosen(nvalues, false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ExecNode& n = g.nodes[i];
    if (n.dead || n.outputs.empty() || !layouts[i].writes || n.reshaped) continue;
    const ExecValue& v = g.values[n.outputs[0]];
    const auto* sizes = v.ir->sizes();
    if (v.is_tensor && v.dtype == DType::kFloat32 && v.source == fb::ValueSource::Activation &&
        sizes && sizes->size() == 4)
      chosen[n.outputs[0]] = true;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ExecNode& n = g.nodes[i];
    if (n.dead) continue;
    for (size_t s = 0; s < n.inputs.size(); ++s)
      if (!layouts[i].slot_ok[s]) chosen[n.inputs[s]] = false;
  }
  size_t count = 0;
  for (size_t v = 0; v < nvalues; ++v) {
    g.values[v].channels_last = chosen[v] && !def_use.users[v].empty() && !def_use.pinned[v];
    count += g.values[v].channels_last;
  }
  g.num_channels_last = count;
  return count;
}

}  // namespace tir
