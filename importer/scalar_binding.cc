// `x.item()` (aten::item, aten::_local_scalar_dense) returns a data-dependent int that torch
// names with an unbacked symbol (u0) and the program uses in shapes, slices and runtime
// assertions. It becomes one node `aten::_local_scalar_dense(self, symbol)` whose second
// argument is the symbol (a SymIntArg); the runtime binds the symbol to the element's value
// before it plans the method (runtime/exec/data_dependent.h). A symbolic int the program
// returns becomes a 0-dim int64 tensor output.
#include "importer/graph_builder_impl.h"

namespace tir::importer {

Status GraphBuilder::add_scalar_binding(const Json& node, const std::string& name) {
  const Json& inputs = *json_get(node, "inputs");
  const Json* outs = json_get(node, "outputs");
  const Json* self = inputs.size() == 1 ? json_get(inputs[0], "arg") : nullptr;
  if (!self || !outs || !outs->is_array() || outs->size() != 1)
    return corrupt("node '", name, "' (aten::item) has a malformed input or output");
  const Json& out = (*outs)[0];
  if (out.contains("as_sym_float"))
    return unsupported("node '", name, "' reads a float with .item(), not supported yet");
  if (!out.contains("as_sym_int") && !out.contains("as_sym_bool"))
    return corrupt("node '", name, "' (aten::item) has an output of unknown kind");
  if (out.contains("as_sym_bool"))
    return unsupported("node '", name, "' reads a bool with .item(), not supported yet");
  std::vector<ArgOffset> args;
  TIR_ASSIGN_OR_RETURN(ArgOffset a, convert_arg("self", *self, nullptr, name));
  args.push_back(a);
  TIR_ASSIGN_OR_RETURN(ArgOffset s, convert_arg("symbol", out, nullptr, name));
  if (std::string text = sym_text(out); !text.empty()) {  // storage_offsets.cc
    if (text.starts_with("Symbol('")) text = text.substr(8, text.find('\'', 8) - 8);
    scalar_symbols_.insert(text);
  }
  args.push_back(s);
  const std::string op = "aten::_local_scalar_dense";
  const std::string full = scope_prefix_ + name;
  nodes_.push_back(fb::CreateNode(*fbb_, fbb_->CreateString(full), fbb_->CreateString(op),
                                  fbb_->CreateVector(args), fbb_->CreateVector<int32_t>({}),
                                  fbb_->CreateString(""), fbb_->CreateString(""),
                                  fbb_->CreateString("")));
  node_ops_.push_back({op, full});
  return ok_status();
}

Result<int32_t> GraphBuilder::add_sym_int_output(const std::string& name) {
  const std::string op = "aten::scalar_tensor";
  const AtenSchema* schema = find_aten_schema(op);
  if (!schema) return corrupt("no schema for ", op);
  const std::string node = name + "_tensor";
  std::vector<ArgOffset> args;
  const Json expr = {{"as_sym_int", {{"as_name", name}}}};
  const Json int64 = {{"as_scalar_type", 5}};  // torch serde ScalarType LONG
  for (const AtenArg& sa : schema->args) {
    Result<ArgOffset> a = sa.name == "s"       ? convert_arg(sa.name, expr, &sa, node)
                          : sa.name == "dtype" ? convert_arg(sa.name, int64, &sa, node)
                                               : default_arg(sa, node);
    TIR_RETURN_IF_ERROR(a.status());
    args.push_back(*a);
  }
  TIR_ASSIGN_OR_RETURN(const int32_t v,
                       add_value(name, fb::ValueKind::Tensor, fb::ValueSource::Activation, -1,
                                 DType::kInt64, 0, "", /*scalar_tensor=*/true));
  nodes_.push_back(fb::CreateNode(*fbb_, fbb_->CreateString(node), fbb_->CreateString(op),
                                  fbb_->CreateVector(args), fbb_->CreateVector<int32_t>({v}),
                                  fbb_->CreateString(""), fbb_->CreateString(""),
                                  fbb_->CreateString("")));
  node_ops_.push_back({op, node});
  return v;
}

}  // namespace tir::importer
