// torch.cond (higher_order.cond(pred, true_graph, false_graph, operands)) becomes one node
// `higher_order::cond` whose arguments are (pred, true_fn, false_fn, operands):
//   pred      a 0-dim bool tensor (data-dependent) or a symbolic bool such as `s0 > 4`
//   true_fn   GraphArg: index of the branch in the current method's `subgraphs`
//   false_fn  GraphArg
//   operands  the tensors passed to either branch, in branch-input order
// Each branch is a subgraph (hop_subgraph.cc): weight, constant and SymInt operands are not
// passed but bind inside the branch by name or expression.
#include "importer/graph_builder_impl.h"
#include "ir/model.h"

namespace tir::importer {

Status GraphBuilder::cond_args(const Json& node, const std::string& name,
                               std::vector<ArgOffset>* out) {
  const Json& inputs = *json_get(node, "inputs");
  const std::string where = "node '" + name + "' (" + std::string(ir::kCondOp) + ")";
  if (inputs.size() != 4)
    return corrupt(where, " has ", inputs.size(),
                   " inputs, expected 4 (pred, true_fn, false_fn, operands)");
  const Json* args[4];
  for (size_t i = 0; i < 4; ++i) {
    args[i] = json_get(inputs[i], "arg");
    if (!args[i]) return corrupt(where, " has a malformed input ", i);
  }
  TIR_ASSIGN_OR_RETURN(ArgOffset pred, convert_arg("pred", *args[0], nullptr, name));
  std::vector<Operand> operands;
  TIR_RETURN_IF_ERROR(hop_operands(*args[3], where, false, &operands));
  TIR_ASSIGN_OR_RETURN(const int32_t true_index, hop_subgraph(*args[1], name, where, operands));
  TIR_ASSIGN_OR_RETURN(const int32_t false_index, hop_subgraph(*args[2], name, where, operands));
  out->push_back(pred);
  out->push_back(graph_arg("true_fn", true_index));
  out->push_back(graph_arg("false_fn", false_index));
  out->push_back(operands_arg("operands", operands));
  return ok_status();
}

}  // namespace tir::importer
