#include "runtime/passes/state_update.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace tir {
namespace {

/// The in-place form of a functional op that writes a whole new `self`, from its catalogue
/// row (OpCaps::in_place); empty when it has none.
std::string_view in_place_form(std::string_view op) {
  const kernels::OpRow* row = kernels::find_op_row(op);
  return row ? row->caps.in_place : std::string_view();
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
    // The old value must be dead once the node has run, and the node must read it only as self.
    const std::vector<int32_t>& users = du.users[self];
    if (std::any_of(users.begin(), users.end(), [&](int32_t u) { return u > p; }) ||
        std::count(users.begin(), users.end(), p) != 1)
      continue;
    node.op = in_place;
    ++rewritten;
  }
  return rewritten;
}

}  // namespace tir
