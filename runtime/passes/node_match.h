// Small matchers the graph rewrites share (quant_rewrite.cc, linear_rewrite.cc): reading a
// node's arguments as the schema has them, and dropping nodes a rewrite left without readers.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Value of the tensor argument at `pos`; -1 when it is not a tensor (None, absent).
inline int32_t tensor_at(const ExecNode& n, size_t pos) {
  if (pos >= n.args.size() || n.args[pos].kind != kernels::ArgKind::kTensor) return -1;
  return n.inputs[size_t(n.args[pos].i)];
}

/// The Scalar argument at `pos` is 1 (or absent: the schema's default of addmm's beta/alpha).
inline bool is_scalar_one(const ExecNode& n, size_t pos) {
  if (pos >= n.args.size()) return true;
  const ExecArg& a = n.args[pos];
  return (a.kind == kernels::ArgKind::kInt && a.i == 1) ||
         (a.kind == kernels::ArgKind::kFloat && a.f == 1.0);
}

inline int declared_rank(const ExecValue& v) {
  return v.ir->sizes() ? int(v.ir->sizes()->size()) : -1;
}

/// A weight or constant the method never writes (its bytes are known at prepare).
inline bool is_fixed(const ExecGraph& g, int32_t v) {
  return v >= 0 && g.values[size_t(v)].source != ir::fb::ValueSource::Activation &&
         !g.values[size_t(v)].mutated;
}

/// A node that takes the place of `n` as `op`: same name, module path, IR index and outputs,
/// profiled as "op(n.op)"; its arguments are the caller's to add.
inline ExecNode replacement_for(const ExecNode& n, std::string_view op) {
  ExecNode r;
  r.op = op;
  r.name = n.name;
  r.module_path = n.module_path;
  r.index = n.index;
  r.outputs = n.outputs;
  r.label = std::string(op) + "(" + std::string(n.op) + ")";
  return r;
}

/// Appends value `v` to `n`'s inputs and returns the argument that refers to it (None for -1).
inline ExecArg tensor_arg(ExecNode& n, int32_t v) {
  ExecArg arg;
  if (v < 0) return arg;
  arg.kind = kernels::ArgKind::kTensor;
  arg.i = int64_t(n.inputs.size());
  n.inputs.push_back(v);
  return arg;
}

/// Node `i` becomes `with`; `du` follows.
inline void replace_node(ExecGraph& g, DefUse& du, int32_t i, ExecNode&& with) {
  du.remove_node(i, g.nodes[size_t(i)]);
  g.nodes[size_t(i)] = std::move(with);
  du.add_node(i, g.nodes[size_t(i)]);
}

/// Marks dead, last first, every live kernel node `removable(op)` accepts whose outputs nobody
/// reads any more; `du` forgets them.
template <typename Removable>
void drop_unread_nodes(ExecGraph& g, DefUse& du, Removable&& removable) {
  for (size_t i = g.nodes.size(); i-- > 0;) {
    ExecNode& n = g.nodes[i];
    if (n.dead || n.kind != StepKind::kKernel || !removable(n.op)) continue;
    const bool unread = std::all_of(n.outputs.begin(), n.outputs.end(), [&](int32_t v) {
      return du.users[size_t(v)].empty() && !du.pinned[size_t(v)];
    });
    if (!unread) continue;
    du.remove_node(int32_t(i), n);
    n.dead = true;
  }
}

}  // namespace tir
