#include "runtime/layout.h"

#include <vector>

namespace tir {

namespace fb = ir::fb;
using kernels::ArgKind;

namespace {

bool accepts_channels_last(const ExecNode& n) {
  return n.kind == StepKind::kKernel && n.kernel && n.kernel->factory()->accepts_channels_last();
}

}  // namespace

size_t choose_channels_last(ExecGraph& g) {
  const size_t nvalues = g.values.size();
  std::vector<bool> chosen(nvalues, false), read(nvalues, false);
  for (const ExecNode& n : g.nodes) {
    if (n.dead || n.outputs.empty() || !accepts_channels_last(n) || n.reshaped) continue;
    const ExecValue& v = g.values[n.outputs[0]];
    const auto* sizes = v.ir->sizes();
    if (v.is_tensor && v.dtype == DType::kFloat32 && v.source == fb::ValueSource::Activation &&
        sizes && sizes->size() == 4)
      chosen[n.outputs[0]] = true;
  }
  for (const ExecNode& n : g.nodes) {
    if (n.dead) continue;
    // Which argument reads each input slot (-1: a fused residual or norm tensor, a copy).
    std::vector<int> arg_of(n.inputs.size(), -1);
    for (size_t k = 0; k < n.args.size(); ++k) {
      if (n.args[k].kind == ArgKind::kTensor) arg_of[n.args[k].i] = int(k);
      if (n.args[k].kind == ArgKind::kTensors)
        for (int64_t slot : n.args[k].ints)
          if (slot >= 0) arg_of[slot] = int(k);
    }
    const bool cl = accepts_channels_last(n);
    for (size_t s = 0; s < n.inputs.size(); ++s) {
      const int32_t v = n.inputs[s];
      read[v] = true;
      const bool ok = cl && (arg_of[s] == 0 || int(s) == n.residual);
      if (!ok) chosen[v] = false;
    }
  }
  for (int32_t v : g.outputs) chosen[v] = false;
  for (const auto& m : g.mutations) chosen[m.first] = false;
  size_t count = 0;
  for (size_t v = 0; v < nvalues; ++v) {
    g.values[v].channels_last = chosen[v] && read[v];
    count += g.values[v].channels_last;
  }
  g.num_channels_last = count;
  return count;
}

}  // namespace tir
