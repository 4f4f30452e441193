#include "runtime/passes/state_update.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

namespace tir {
namespace {

/// The in-place form of a functional op that writes a whole new `self`, from its catalogue
/// row (OpCaps::in_place); empty when it has none.
std::string_view in_place_form(std::string_view op) {
  const kernels::OpRow* row = kernels::find_op_row(op);
  return row ? row->caps.in_place : std::string_view();
}

/// Whether a value that may share `self`'s memory is read at or after node `p`, or is an
/// output: the outputs of the data-movement nodes before `p` that read self, transitively
/// (views, and repeat, cat, roll, flip, ... whose kernel may alias its input when nothing
/// moves: PrepareInfo::output_alias). An in-place write at `p` would change them under the
/// reader, which the functional program gives the old value.
bool alias_read_after(const ExecGraph& g, const DefUse& du, int32_t self, int32_t p) {
  std::vector<int32_t> stack = {self};
  std::vector<bool> seen(g.values.size());
  while (!stack.empty()) {
    const int32_t v = stack.back();
    stack.pop_back();
    for (int32_t u : du.users[v]) {
      if (u == p && v == self) continue;
      if (u >= p) return true;
      const kernels::OpRow* row = kernels::find_op_row(g.nodes[u].op);
      if (!row || !row->caps.all_dtypes) continue;
      for (int32_t o : g.nodes[u].outputs) {
        if (o < 0 || seen[o]) continue;
        if (du.pinned[o]) return true;
        seen[o] = true;
        stack.push_back(o);
      }
    }
  }
  return false;
}

}  // namespace

size_t update_state_in_place(ExecGraph& g, const DefUse& du) {
  size_t rewritten = 0;
  for (const auto& mutation : g.mutations) {
    const std::string_view buffer = mutation.second;  // named: a lambda below captures it
    const int32_t p = du.producer[mutation.first];
    if (p < 0) continue;
    ExecNode& node = g.nodes[p];
    const std::string_view in_place = in_place_form(node.op);
    if (in_place.empty() || node.args.empty() || node.args[0].kind != kernels::ArgKind::kTensor)
      continue;
    const int32_t self = node.inputs[node.args[0].i];
    const bool same_buffer =
        std::any_of(g.state_values.begin(), g.state_values.end(),
                    [&](const auto& s) { return s.first == self && s.second == buffer; });
    if (!same_buffer) continue;
    // The old value must be dead once the node has run, also through the values that may
    // share its memory, and the node must read it only as self.
    const std::vector<int32_t>& users = du.users[self];
    if (std::count(users.begin(), users.end(), p) != 1 || alias_read_after(g, du, self, p))
      continue;
    node.op = in_place;
    ++rewritten;
  }
  return rewritten;
}

}  // namespace tir
