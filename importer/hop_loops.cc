// torch's loop HOPs become nodes whose subgraphs are built like cond's (hop_subgraph.cc):
//   higher_order::while_loop (cond_fn, body_fn, carried, additional)
//   higher_order::scan       (combine_fn, init, xs, additional)
//   higher_order::map_impl   (body_fn, xs, args)
// The carried state, init and xs are always passed to the subgraphs (the loop changes or
// slices them, even when they start as a weight); additional inputs that are weights or
// constants bind by name inside, as in cond. torch applies scan's `dim` and `reverse`
// outside the HOP (movedim, flip), so scan always runs forwards over dim 0.
#include "importer/graph_builder_impl.h"
#include "ir/model.h"

namespace tir::importer {
namespace {

struct LoopLayout {
  size_t graphs;  // leading subgraph arguments
  size_t lists;   // operand lists after them
  size_t forced;  // of which the first `forced` are always passed
  const char* names[4];
};

LoopLayout loop_layout(const std::string& op) {
  if (op == ir::kWhileLoopOp) return {2, 2, 1, {"cond_fn", "body_fn", "carried", "additional"}};
  if (op == ir::kScanOp) return {1, 3, 2, {"combine_fn", "init", "xs", "additional"}};
  return {1, 2, 1, {"body_fn", "xs", "args", ""}};  // kMapOp
}

}  // namespace

Status GraphBuilder::loop_args(const Json& node, const std::string& name, const std::string& op,
                               std::vector<ArgOffset>* out) {
  const Json& inputs = *json_get(node, "inputs");
  const std::string where = "node '" + name + "' (" + op + ")";
  const LoopLayout l = loop_layout(op);
  const size_t nargs = l.graphs + l.lists;
  if (inputs.size() != nargs)
    return corrupt(where, " has ", inputs.size(), " inputs, expected ", nargs);
  std::vector<const Json*> args(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    args[i] = json_get(inputs[i], "arg");
    if (!args[i]) return corrupt(where, " has a malformed input ", i);
  }
  std::vector<std::vector<Operand>> lists(l.lists);
  std::vector<Operand> all;  // the subgraphs' inputs: every list in order
  for (size_t k = 0; k < l.lists; ++k) {
    TIR_RETURN_IF_ERROR(hop_operands(*args[l.graphs + k], where, k < l.forced, &lists[k]));
    all.insert(all.end(), lists[k].begin(), lists[k].end());
  }
  for (size_t g = 0; g < l.graphs; ++g) {
    TIR_ASSIGN_OR_RETURN(const int32_t index, hop_subgraph(*args[g], name, where, all));
    out->push_back(graph_arg(l.names[g], index));
  }
  for (size_t k = 0; k < l.lists; ++k)
    out->push_back(operands_arg(l.names[l.graphs + k], lists[k]));
  return ok_status();
}

}  // namespace tir::importer
