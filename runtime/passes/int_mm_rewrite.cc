#include "runtime/passes/int_mm_rewrite.h"

#include <string_view>
#include <vector>

#include "runtime/passes/node_match.h"

namespace tir {

namespace {

bool is_transpose(const ExecNode& n) {
  if (n.op == "aten::t") return true;
  return n.op == "aten::permute" && n.args.size() >= 2 &&
         n.args[1].ints == std::vector<int64_t>{1, 0};
}

}  // namespace

size_t rewrite_int_mm_weights(ExecGraph& g, DefUse& def_use) {
  size_t rewritten = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ExecNode& n = g.nodes[i];
    if (n.kind != StepKind::kKernel || n.dead || n.op != "aten::_int_mm") continue;
    const int32_t b = tensor_at(n, 1);
    const int32_t p = b >= 0 ? def_use.producer[size_t(b)] : -1;
    if (p < 0 || !is_transpose(g.nodes[size_t(p)])) continue;
    const int32_t w = tensor_at(g.nodes[size_t(p)], 0);
    if (!is_fixed(g, w) || g.values[size_t(w)].dtype != DType::kInt8 ||
        declared_rank(g.values[size_t(w)]) != 2)
      continue;
    ExecNode q = replacement_for(n, "tir::int_mm_weight");
    q.args.push_back(tensor_arg(q, tensor_at(n, 0)));
    q.args.push_back(tensor_arg(q, w));
    replace_node(g, def_use, int32_t(i), std::move(q));
    ++rewritten;
  }
  if (rewritten > 0)
    drop_unread_nodes(g, def_use,
                      [](std::string_view op) { return op == "aten::t" || op == "aten::permute"; });
  return rewritten;
}

}  // namespace tir
