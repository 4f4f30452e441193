// Nodes: target -> op name, schema-ordered arguments with defaults filled, outputs,
// and the module path / source metadata.
#include <unordered_set>

#include "importer/functionalize.h"
#include "importer/graph_builder_impl.h"
#include "importer/op_renames.h"
#include "ir/model.h"
#include "kernels/ops/catalogue.h"

namespace tir::importer {
namespace {

// Splits on `sep` outside brackets and parentheses.
std::vector<std::string_view> split_top(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
    else if (c == sep && depth == 0) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

std::string metadata_string(const Json& node, std::string_view key) {
  const Json* md = json_get(node, "metadata");
  const Json* v = md ? json_get(*md, key) : nullptr;
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace

std::string op_name_from_target(std::string_view target) {
  constexpr std::string_view kOps = "torch.ops.";
  if (target.starts_with(kOps)) {
    std::string_view rest = target.substr(kOps.size());  // ns.op.overload or ns.op
    const size_t dot = rest.find('.');
    if (dot == std::string_view::npos) return std::string(rest);
    const std::string_view ns = rest.substr(0, dot);
    std::string_view op = rest.substr(dot + 1);
    std::string_view overload;
    if (ns != "higher_order") {
      if (const size_t d = op.rfind('.'); d != std::string_view::npos) {
        overload = op.substr(d + 1);
        op = op.substr(0, d);
      }
    }
    std::string out = std::string(ns) + "::" + std::string(op);
    if (!overload.empty() && overload != "default") out += "." + std::string(overload);
    return out;
  }
  std::string out(target.starts_with("#") ? target.substr(1) : target);
  if (const size_t d = out.rfind('.'); d != std::string::npos) out.replace(d, 1, "::");
  return out;
}

std::pair<std::string, std::string> parse_nn_module_stack(std::string_view stack) {
  if (stack.empty()) return {};
  const std::vector<std::string_view> entries = split_top(stack, ';');
  const std::vector<std::string_view> fields = split_top(entries.back(), ',');
  if (fields.size() < 3 || fields[0].starts_with("_empty_nn_module_stack")) return {};
  return {std::string(fields[1]), std::string(fields[2])};
}

std::string short_source(std::string_view trace) {
  constexpr std::string_view kFile = "File \"";
  const size_t at = trace.rfind(kFile);
  if (at == std::string_view::npos) return "";
  const size_t name_start = at + kFile.size();
  const size_t name_end = trace.find('"', name_start);
  if (name_end == std::string_view::npos) return "";
  std::string_view file = trace.substr(name_start, name_end - name_start);
  if (const size_t slash = file.rfind('/'); slash != std::string_view::npos)
    file = file.substr(slash + 1);
  std::string out(file);
  constexpr std::string_view kLine = ", line ";
  if (trace.substr(name_end + 1, kLine.size()) == kLine) {
    size_t i = name_end + 1 + kLine.size(), j = i;
    while (j < trace.size() && trace[j] >= '0' && trace[j] <= '9') ++j;
    if (j > i) out += ":" + std::string(trace.substr(i, j - i));
  }
  return out;
}

Status GraphBuilder::add_node_outputs(const Json& node, const std::string& node_name,
                                      std::vector<int32_t>* out) {
  const Json* outputs = json_get(node, "outputs");
  if (!outputs || !outputs->is_array()) return corrupt("node '", node_name, "' has no outputs");
  auto tensor = [&](const Json& t) -> Status {
    const Json* n = json_get(t, "name");
    if (!n || !n->is_string()) return corrupt("node '", node_name, "' has an unnamed output");
    TIR_ASSIGN_OR_RETURN(const int32_t v, add_value(n->get<std::string>(), fb::ValueKind::Tensor,
                                                    fb::ValueSource::Activation, -1));
    out->push_back(v);
    return ok_status();
  };
  auto none = [&]() -> Status {
    const std::string name = node_name + "_none_" + std::to_string(out->size());
    TIR_ASSIGN_OR_RETURN(const int32_t v,
                         add_value(name, fb::ValueKind::None, fb::ValueSource::Activation, -1));
    out->push_back(v);
    return ok_status();
  };
  for (const Json& o : *outputs) {
    TIR_ASSIGN_OR_RETURN(auto u, json_union(o));
    const auto& [kind, body] = u;
    if (kind == "as_tensor") {
      TIR_RETURN_IF_ERROR(tensor(*body));
    } else if (kind == "as_tensors") {
      for (const Json& t : *body) TIR_RETURN_IF_ERROR(tensor(t));
    } else if (kind == "as_optional_tensors") {
      for (const Json& t : *body) {
        TIR_ASSIGN_OR_RETURN(auto e, json_union(t));
        TIR_RETURN_IF_ERROR(e.first == "as_tensor" ? tensor(*e.second) : none());
      }
    } else if (kind == "as_none") {
      TIR_RETURN_IF_ERROR(none());
    } else if (kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float") {
      const Json* n = json_get(*body, "as_name");
      if (!n || !n->is_string()) {
        TIR_RETURN_IF_ERROR(none());
        continue;
      }
      const DType dt = kind == "as_sym_int"    ? DType::kInt64
                       : kind == "as_sym_bool" ? DType::kBool
                                               : DType::kFloat64;
      TIR_ASSIGN_OR_RETURN(const int32_t v, add_value(n->get<std::string>(), fb::ValueKind::SymInt,
                                                      fb::ValueSource::Activation, -1, dt));
      out->push_back(v);
    } else {
      return unsupported("node '", node_name, "' has an output of kind ", kind);
    }
  }
  return ok_status();
}

void GraphBuilder::functionalize(const Json& node, std::string* op, std::string* out_rebind) const {
  const std::string functional = functional_op_name(*op);
  if (functional.empty() || !find_aten_schema(functional)) return;
  // An in-place op with a kernel of its own runs as it is.
  if (kernels::catalogue_has_op(*op, DeviceType::kCpu)) return;
  const Json* inputs = json_get(node, "inputs");
  std::string self;
  for (const Json& in : *inputs) {
    const Json* n = json_get(in, "name");
    const Json* a = json_get(in, "arg");
    if (!n || !a || !n->is_string() || n->get<std::string>() != "self") continue;
    if (const Json* t = json_get(*a, "as_tensor"))
      if (const Json* tn = json_get(*t, "name"); tn && tn->is_string())
        self = tn->get<std::string>();
  }
  if (self.empty()) return;
  if (functional == "aten::detach") {  // no data changes: exact whatever shares x
    *op = functional;
    return;
  }
  const auto& names = scope_ ? *scope_ : value_index_;
  const auto it = names.find(self);
  if (it == names.end() || aliased_values_.count(it->second)) return;
  if (value_refs_[it->second].source != fb::ValueSource::Activation) return;
  *op = functional;
  *out_rebind = self;
}

Status GraphBuilder::schema_args(const Json& inputs, const std::string& op, const std::string& name,
                                 const AtenSchema& schema, std::vector<ArgOffset>* out) {
  std::unordered_map<std::string, const Json*> given;
  for (const Json& in : inputs) {
    const Json* n = json_get(in, "name");
    const Json* a = json_get(in, "arg");
    if (!n || !n->is_string() || !a) return corrupt("node '", name, "' has a malformed input");
    given[n->get<std::string>()] = a;
  }
  std::unordered_set<std::string> known;
  for (const AtenArg& sa : schema.args) {
    known.insert(sa.name);
    auto it = given.find(sa.name);
    if (it != given.end()) {
      TIR_ASSIGN_OR_RETURN(ArgOffset a, convert_arg(sa.name, *it->second, &sa, name));
      out->push_back(a);
    } else if (sa.has_default) {
      TIR_ASSIGN_OR_RETURN(ArgOffset a, default_arg(sa, name));
      out->push_back(a);
    } else {
      return corrupt("node '", name, "' (", op, ") lacks argument '", sa.name,
                     "', which has no default");
    }
  }
  for (const auto& [n, a] : given)
    if (!known.count(n))
      return corrupt("node '", name, "' passes argument '", n, "', which ", op, " does not have");
  return ok_status();
}

Status GraphBuilder::raw_args(const Json& inputs, const std::string& name,
                              std::vector<ArgOffset>* out) {
  int i = 0;
  for (const Json& in : inputs) {
    const Json* n = json_get(in, "name");
    const Json* a = json_get(in, "arg");
    if (!a) return corrupt("node '", name, "' has a malformed input");
    std::string arg_name = n && n->is_string() ? n->get<std::string>() : "";
    if (arg_name.empty()) arg_name = "arg" + std::to_string(i);
    TIR_ASSIGN_OR_RETURN(ArgOffset off, convert_arg(arg_name, *a, nullptr, name));
    out->push_back(off);
    ++i;
  }
  return ok_status();
}

namespace {

/// Whether every output of `node` is a SymInt, SymBool or SymFloat (and there is one).
bool only_symbolic_outputs(const Json& node) {
  const Json* outs = json_get(node, "outputs");
  if (!outs || !outs->is_array() || outs->empty()) return false;
  for (const Json& o : *outs)
    if (!o.is_object() || o.size() != 1 ||
        !(o.contains("as_sym_int") || o.contains("as_sym_bool") || o.contains("as_sym_float")))
      return false;
  return true;
}

}  // namespace

Status GraphBuilder::add_node(const Json& node, size_t ordinal) {
  const Json* target = json_get(node, "target");
  if (!target || !target->is_string()) return corrupt("node ", ordinal, " has no target");
  std::string op = op_name_from_target(target->get<std::string>());
  std::string name;
  if (const Json* n = json_get(node, "name"); n && n->is_string()) name = n->get<std::string>();
  if (name.empty()) name = "node_" + std::to_string(ordinal);

  const Json* inputs = json_get(node, "inputs");
  if (!inputs || !inputs->is_array()) return corrupt("node '", name, "' has no inputs");
  const auto [module_path, module_type] =
      parse_nn_module_stack(metadata_string(node, "nn_module_stack"));
  const NodeSite site{name, module_path, module_type,
                      short_source(metadata_string(node, "stack_trace"))};
  // Views taken before an in-place write to what they view are taken again (view_tracking.cc).
  TIR_RETURN_IF_ERROR(refresh_inputs(node, site));
  if (op == "higher_order::wrap_with_set_grad_enabled" ||
      op == "higher_order::wrap_with_autocast" || op == "higher_order::invoke_subgraph")
    return inline_hop(node, name, op);
  if (op.starts_with("higher_order::") && !ir::is_control_flow_op(op))
    return unsupported("node '", name, "' is the higher-order op ", op,
                       ", which is not supported yet; cond, while_loop, scan and map run, and "
                       "wrap_with_set_grad_enabled, wrap_with_autocast and invoke_subgraph "
                       "are inlined");
  if (op == "aten::item" || op == "aten::_local_scalar_dense")
    return add_scalar_binding(node, name);
  if (op == "aten::sym_storage_offset") note_storage_offsets(node);
  if (op == "aten::_assert_scalar" && asserts_storage_offset(node)) {
    ++skipped_symbolic_nodes_;  // storage_offsets.cc
    return ok_status();
  }
  if (is_float_arith(node, op)) return add_float_arith(node, op, name);  // scalar_float.cc
  // Pure shape arithmetic (sym_size.int, _operator.mul, ...) is not emitted: every use of
  // its result is replaced by its expression over the root symbols (sym_int_values).
  if (only_symbolic_outputs(node)) {
    ++skipped_symbolic_nodes_;
    return ok_status();
  }
  std::string rebind;  // value whose later uses read this node's output (functionalised)
  functionalize(node, &op, &rebind);
  // An in-place node on a view, or on a tensor that has views (view_write_back.cc).
  const int32_t self = self_value(node);
  bool writes_back = false;
  if (rebind.empty()) {
    TIR_ASSIGN_OR_RETURN(writes_back, plan_write_back(node, name, &op));
  }
  Json renamed;  // an op the importer writes as another (op_renames.h)
  if (rename_op(&op, *inputs, *tensor_values_, &renamed)) inputs = &renamed;
  std::vector<ArgOffset> args;
  const AtenSchema* schema = op.starts_with("aten::") ? find_aten_schema(op) : nullptr;
  if (op == ir::kCondOp) {
    TIR_RETURN_IF_ERROR(cond_args(node, name, &args));
  } else if (ir::is_loop_op(op)) {
    TIR_RETURN_IF_ERROR(loop_args(node, name, op, &args));
  } else if (schema) {
    TIR_RETURN_IF_ERROR(schema_args(*inputs, op, name, *schema, &args));
  } else {
    TIR_RETURN_IF_ERROR(raw_args(*inputs, name, &args));
  }
  std::vector<int32_t> outs;
  TIR_RETURN_IF_ERROR(add_node_outputs(node, name, &outs));
  if (!rebind.empty() && !outs.empty()) {
    auto& names = scope_ ? *scope_ : value_index_;
    names[rebind] = outs[0];
  }
  if (is_view_op(op)) {
    record_view(op, args, node, outs);
    for (const Json& in : *inputs) {
      const Json* a = json_get(in, "arg");
      const Json* t = a ? json_get(*a, "as_tensor") : nullptr;
      const Json* tn = t ? json_get(*t, "name") : nullptr;
      if (!tn || !tn->is_string()) continue;
      const auto& names = scope_ ? *scope_ : value_index_;
      if (auto it = names.find(tn->get<std::string>()); it != names.end())
        aliased_values_.insert(it->second);
    }
    aliased_values_.insert(outs.begin(), outs.end());
  }
  const std::string full_name = scope_prefix_ + name;  // unique across inlined subgraphs
  nodes_.push_back(fb::CreateNode(*fbb_, fbb_->CreateString(full_name), fbb_->CreateString(op),
                                  fbb_->CreateVector(args), fbb_->CreateVector(outs),
                                  fbb_->CreateString(module_path), fbb_->CreateString(module_type),
                                  fbb_->CreateString(site.source)));
  node_ops_.push_back({op, full_name});
  if (writes_back && !outs.empty()) return emit_write_back(self, outs[0], site);
  return ok_status();
}

}  // namespace tir::importer
