// Higher-order ops that only change autograd or autocast state around a subgraph
// (pt2-format.md §3.10): wrap_with_set_grad_enabled(enabled, submod, *operands) and
// wrap_with_autocast(device_type, dtype, enabled, cache_enabled, submod, *operands).
// Inference does not track gradients, and autocast has already been applied to the ops
// inside. invoke_subgraph(submod, identifier, *operands) (torch.compiler.nested_compile_region,
// one subgraph called per layer with that layer's weights) computes what its subgraph does.
// So the subgraph's nodes are spliced into the parent, once per call: its inputs are bound to the
// operands, its outputs become the HOP's outputs, and its names get the prefix "<hop>.".
#include <tuple>

#include "importer/graph_builder_impl.h"

namespace tir::importer {
namespace {}  // namespace

Status GraphBuilder::inline_hop(const Json& node, const std::string& name, const std::string& op) {
  const Json& inputs = *json_get(node, "inputs");
  const Json* graph = nullptr;
  std::vector<int32_t> operands;
  for (const Json& in : inputs) {
    const Json* a = json_get(in, "arg");
    if (!a) return corrupt("node '", name, "' has a malformed input");
    TIR_ASSIGN_OR_RETURN(auto u, json_union(*a));
    if (u.first == "as_graph") {
      if (graph) return unsupported("node '", name, "' (", op, ") has two subgraphs");
      graph = json_get(*u.second, "graph");
      if (!graph || !graph->is_object()) return corrupt("node '", name, "' has an empty as_graph");
    } else if (graph) {  // operands follow the subgraph; flags come before it
      if (u.first == "as_string" && op == "higher_order::invoke_subgraph" && operands.empty())
        continue;  // the subgraph's identifier
      if (u.first == "as_sym_int") {
        operands.push_back(-1);  // resolved by expression inside, like every symbolic int
        continue;
      }
      if (u.first != "as_tensor")
        return unsupported("node '", name, "' (", op, ") passes a ", u.first,
                           " operand to its subgraph, not supported yet");
      TIR_ASSIGN_OR_RETURN(const int32_t v, tensor_ref(*u.second, "node '" + name + "'"));
      operands.push_back(v);
    }
  }
  if (!graph) return corrupt("node '", name, "' (", op, ") has no subgraph");

  std::unordered_map<std::string, int32_t> scope;
  const Json* sub_inputs = json_get(*graph, "inputs");
  if (!sub_inputs || !sub_inputs->is_array() || sub_inputs->size() != operands.size())
    return corrupt("node '", name, "' passes ", operands.size(), " operands to a subgraph with ",
                   sub_inputs && sub_inputs->is_array() ? sub_inputs->size() : 0, " inputs");
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] < 0 && json_get((*sub_inputs)[i], "as_sym_int")) continue;
    const Json* t = json_get((*sub_inputs)[i], "as_tensor");
    const Json* n = t ? json_get(*t, "name") : nullptr;
    if (!n || !n->is_string())
      return unsupported("node '", name, "' subgraph input ", i, " is not a tensor");
    scope[n->get<std::string>()] = operands[i];
  }

  // Enter the subgraph's scope; nested HOPs recurse through add_node.
  const auto saved =
      std::make_tuple(tensor_values_, sym_int_values_, sym_bool_values_, scope_, scope_prefix_);
  tensor_values_ = &member_or_empty(*graph, "tensor_values");
  sym_int_values_ = &member_or_empty(*graph, "sym_int_values");
  sym_bool_values_ = &member_or_empty(*graph, "sym_bool_values");
  scope_ = &scope;
  scope_prefix_ += name + ".";
  Status status;
  std::vector<int32_t> results;
  if (const Json* nodes = json_get(*graph, "nodes"); nodes && nodes->is_array()) {
    for (size_t i = 0; i < nodes->size() && status.ok(); ++i) status = add_node((*nodes)[i], i);
  } else {
    status = corrupt("node '", name, "' has a subgraph without nodes");
  }
  if (const Json* outs = json_get(*graph, "outputs"); status.ok() && outs && outs->is_array()) {
    for (const Json& o : *outs) {
      const Json* t = json_get(o, "as_tensor");
      if (!t) {
        status = unsupported("node '", name, "' subgraph returns a non-tensor, not supported yet");
        break;
      }
      auto v = tensor_ref(*t, "node '" + name + "' subgraph output");
      if (!v.ok()) {
        status = v.status();
        break;
      }
      results.push_back(*v);
    }
  }
  std::tie(tensor_values_, sym_int_values_, sym_bool_values_, scope_, scope_prefix_) = saved;
  TIR_RETURN_IF_ERROR(status);

  // The HOP's outputs (one Argument per tuple element) name the subgraph's results.
  const Json* outputs = json_get(node, "outputs");
  if (!outputs || !outputs->is_array()) return corrupt("node '", name, "' has no outputs");
  std::vector<std::string> out_names;
  for (const Json& o : *outputs) {
    TIR_ASSIGN_OR_RETURN(auto u, json_union(o));
    auto add_name = [&](const Json& t) -> Status {
      const Json* n = json_get(t, "name");
      if (!n || !n->is_string()) return corrupt("node '", name, "' has an unnamed output");
      out_names.push_back(n->get<std::string>());
      return ok_status();
    };
    if (u.first == "as_tensor") {
      TIR_RETURN_IF_ERROR(add_name(*u.second));
    } else if (u.first == "as_tensors") {
      for (const Json& t : *u.second) TIR_RETURN_IF_ERROR(add_name(t));
    } else {
      return unsupported("node '", name, "' has an output of kind ", u.first);
    }
  }
  if (out_names.size() > results.size())
    return corrupt("node '", name, "' has ", out_names.size(), " outputs, its subgraph returns ",
                   results.size());
  for (size_t i = 0; i < out_names.size(); ++i) {
    auto& names = scope_ ? *scope_ : value_index_;
    if (!names.emplace(out_names[i], results[i]).second)
      return corrupt("value '", out_names[i], "' is defined twice");
  }
  return ok_status();
}

}  // namespace tir::importer
