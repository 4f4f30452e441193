// What the HOP nodes that run subgraphs share (higher_order::cond, while_loop, scan,
// map_impl): their operand lists and their subgraphs. Each subgraph becomes a Method of its
// own (values, nodes, inputs, outputs) named "<node>.<graph>", sharing the top-level method's
// symbols. Operands that are weights or constants are not passed unless the node changes or
// slices them (loop state, scanned xs): inside the subgraph the same value binds by name, so
// kernels see weight data at prepare time. SymInt operands are not passed either: the
// subgraph resolves them by expression, like every other symbolic int.
#include <tuple>

#include "importer/graph_builder_impl.h"

namespace tir::importer {

Status GraphBuilder::hop_operands(const Json& arg, const std::string& where, bool force,
                                  std::vector<Operand>* out) {
  TIR_ASSIGN_OR_RETURN(auto ou, json_union(arg));
  if (ou.first != "as_tensors" || !ou.second->is_array())
    return unsupported(where, " passes operands of kind ", ou.first, ", not supported yet");
  for (const Json& t : *ou.second) {
    Operand o;
    const Json* n = json_get(t, "name");
    if (n && n->is_string() && json_get(*sym_int_values_, n->get<std::string>())) {
      if (force)
        return unsupported(where, " carries or scans the symbolic int '", n->get<std::string>(),
                           "', not supported yet");
      out->push_back(o);  // a SymInt (torch lists it among the tensors)
      continue;
    }
    TIR_ASSIGN_OR_RETURN(o.value, tensor_ref(t, where + " operand"));
    o.source = value_refs_[o.value].source;
    o.index = value_refs_[o.value].index;
    o.force = force;
    out->push_back(o);
  }
  return ok_status();
}

Result<int32_t> GraphBuilder::hop_subgraph(const Json& arg, const std::string& name,
                                           const std::string& where,
                                           const std::vector<Operand>& operands) {
  TIR_ASSIGN_OR_RETURN(auto gu, json_union(arg));
  const Json* gname = gu.first == "as_graph" ? json_get(*gu.second, "name") : nullptr;
  const Json* graph = gu.first == "as_graph" ? json_get(*gu.second, "graph") : nullptr;
  if (!gname || !gname->is_string() || !graph || !graph->is_object())
    return corrupt(where, " has a subgraph argument of kind ", gu.first, ", expected a graph");
  const std::string sub_name = scope_prefix_ + name + "." + gname->get<std::string>();
  const Json* sub_inputs = json_get(*graph, "inputs");
  if (!sub_inputs || !sub_inputs->is_array() || sub_inputs->size() != operands.size())
    return corrupt(where, " passes ", operands.size(), " operands to subgraph '", sub_name,
                   "', which has ", sub_inputs && sub_inputs->is_array() ? sub_inputs->size() : 0,
                   " inputs");

  // The subgraph is a closed scope with a method state of its own; the parent's is restored
  // whatever happens.
  const auto saved_scope =
      std::make_tuple(tensor_values_, sym_int_values_, sym_bool_values_, scope_, scope_prefix_);
  auto saved_method = std::make_tuple(std::move(values_), std::move(value_index_),
                                      std::move(value_refs_), std::move(nodes_), std::move(inputs_),
                                      std::move(outputs_), std::move(subgraphs_));
  auto saved_views =
      std::make_tuple(std::move(value_meta_names_), std::move(view_links_), std::move(view_root_),
                      std::move(superseded_), std::move(retaken_), std::move(state_of_),
                      std::move(aliased_values_));
  value_meta_names_ = {};
  view_links_ = {};
  view_root_ = {};
  superseded_ = {};
  retaken_ = {};
  state_of_ = {};
  aliased_values_ = {};
  values_ = {};
  value_index_ = {};
  value_refs_ = {};
  nodes_ = {};
  inputs_ = {};
  outputs_ = {};
  subgraphs_ = {};
  std::unordered_map<std::string, int32_t> scope;
  tensor_values_ = &member_or_empty(*graph, "tensor_values");
  sym_int_values_ = &member_or_empty(*graph, "sym_int_values");
  sym_bool_values_ = &member_or_empty(*graph, "sym_bool_values");
  scope_ = &scope;
  scope_prefix_ = sub_name + ".";

  auto build = [&]() -> Status {
    for (size_t i = 0; i < operands.size(); ++i) {
      TIR_ASSIGN_OR_RETURN(auto iu, json_union((*sub_inputs)[i]));
      const Json* n = json_get(*iu.second, iu.first == "as_tensor" ? "name" : "as_name");
      if (iu.first == "as_sym_int" && operands[i].value < 0) continue;
      if (iu.first != "as_tensor" || !n || !n->is_string() || operands[i].value < 0)
        return unsupported("subgraph '", sub_name, "' input ", i, " is a ", iu.first,
                           " where the node passes a ",
                           operands[i].value < 0 ? "symbolic int" : "tensor");
      const Operand& o = operands[i];
      TIR_ASSIGN_OR_RETURN(
          const int32_t v,
          add_value(n->get<std::string>(), fb::ValueKind::Tensor,
                    o.passed() ? fb::ValueSource::UserInput : o.source, o.passed() ? -1 : o.index));
      if (o.passed()) inputs_.push_back(v);
    }
    const Json* nodes = json_get(*graph, "nodes");
    if (!nodes || !nodes->is_array()) return corrupt("subgraph '", sub_name, "' has no nodes");
    for (size_t i = 0; i < nodes->size(); ++i) TIR_RETURN_IF_ERROR(add_node((*nodes)[i], i));
    const Json* outs = json_get(*graph, "outputs");
    if (!outs || !outs->is_array()) return corrupt("subgraph '", sub_name, "' has no outputs");
    for (const Json& o : *outs) {
      const Json* t = json_get(o, "as_tensor");
      if (!t) return unsupported("subgraph '", sub_name, "' returns a non-tensor");
      TIR_ASSIGN_OR_RETURN(int32_t v, tensor_ref(*t, "subgraph '" + sub_name + "' output"));
      TIR_ASSIGN_OR_RETURN(v, current_value(v, NodeSite{"output", "", "", ""}));
      outputs_.push_back(v);
    }
    return ok_status();
  };
  const Status status = build();
  flatbuffers::Offset<fb::Method> method;
  if (status.ok())
    method = fb::CreateMethod(*fbb_, fbb_->CreateString(sub_name), fbb_->CreateVector(values_),
                              fbb_->CreateVector(nodes_), fbb_->CreateVector(inputs_),
                              fbb_->CreateVector(outputs_), 0, 0, fbb_->CreateVector(subgraphs_));
  std::tie(values_, value_index_, value_refs_, nodes_, inputs_, outputs_, subgraphs_) =
      std::move(saved_method);
  std::tie(value_meta_names_, view_links_, view_root_, superseded_, retaken_, state_of_,
           aliased_values_) = std::move(saved_views);
  std::tie(tensor_values_, sym_int_values_, sym_bool_values_, scope_, scope_prefix_) = saved_scope;
  TIR_RETURN_IF_ERROR(status);
  subgraphs_.push_back(method);
  return static_cast<int32_t>(subgraphs_.size() - 1);
}

ArgOffset GraphBuilder::graph_arg(const char* name, int32_t index) {
  auto& b = *fbb_;
  return fb::CreateArgument(b, b.CreateString(name), fb::ArgValue::GraphArg,
                            fb::CreateGraphArg(b, index).Union());
}

ArgOffset GraphBuilder::operands_arg(const char* name, const std::vector<Operand>& operands) {
  std::vector<int32_t> passed;
  for (const Operand& o : operands)
    if (o.passed()) passed.push_back(o.value);
  auto& b = *fbb_;
  return fb::CreateArgument(b, b.CreateString(name), fb::ArgValue::TensorsArg,
                            fb::CreateTensorsArg(b, b.CreateVector(passed)).Union());
}

}  // namespace tir::importer
