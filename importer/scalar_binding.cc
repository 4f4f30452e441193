// `x.item()` (aten::item, aten::_local_scalar_dense) returns a data-dependent int or bool that
// torch names with an unbacked symbol (u0; a bool is `Eq(u0, 1)`, u0 in [0, 1]) and the program
// uses in shapes, slices, torch.sym_ite, torch.cond predicates and runtime assertions. It becomes
// one node `aten::_local_scalar_dense(self, symbol)` whose second argument is the symbol (a
// SymIntArg); the runtime binds the symbol to the element's value before it plans the method
// (runtime/exec/data_dependent.h). A symbolic int the program returns becomes a 0-dim int64 tensor
// output.
#include "importer/graph_builder_impl.h"

namespace tir::importer {

Status GraphBuilder::add_scalar_binding(const Json& node, const std::string& name) {
  const Json& inputs = *json_get(node, "inputs");
  const Json* outs = json_get(node, "outputs");
  const Json* self = inputs.size() == 1 ? json_get(inputs[0], "arg") : nullptr;
  if (!self || !outs || !outs->is_array() || outs->size() != 1)
    return corrupt("node '", name, "' (aten::item) has a malformed input or output");
  const Json& out = (*outs)[0];
  if (out.contains("as_sym_float")) return add_float_item(*self, out, name);  // scalar_float.cc
  if (!out.contains("as_sym_int") && !out.contains("as_sym_bool"))
    return corrupt("node '", name, "' (aten::item) has an output of kind ", json_preview(out));
  const bool is_bool = out.contains("as_sym_bool");
  std::vector<ArgOffset> args;
  TIR_ASSIGN_OR_RETURN(ArgOffset a, convert_arg("self", *self, nullptr, name));
  args.push_back(a);
  TIR_ASSIGN_OR_RETURN(const int64_t symbol, item_symbol(out, name, is_bool));
  const std::string& symbol_name = symbols_[symbol].name;
  scalar_symbols_.insert(symbol_name);
  const fb::ExprTerm term(fb::ExprOp::Sym, symbol);
  const auto expr = fb::CreateSymExpr(*fbb_, fbb_->CreateVectorOfStructs(&term, 1),
                                      fbb_->CreateString(symbol_name));
  args.push_back(fb::CreateArgument(*fbb_, fbb_->CreateString("symbol"), fb::ArgValue::SymIntArg,
                                    fb::CreateSymIntArg(*fbb_, expr).Union()));
  const std::string op = "aten::_local_scalar_dense";
  const std::string full = scope_prefix_ + name;
  nodes_.push_back(fb::CreateNode(*fbb_, fbb_->CreateString(full), fbb_->CreateString(op),
                                  fbb_->CreateVector(args), fbb_->CreateVector<int32_t>({}),
                                  fbb_->CreateString(""), fbb_->CreateString(""),
                                  fbb_->CreateString("")));
  node_ops_.push_back({op, full});
  return ok_status();
}

Result<int64_t> GraphBuilder::item_symbol(const Json& out, const std::string& name, bool is_bool) {
  const Json& sym = *json_get(out, is_bool ? "as_sym_bool" : "as_sym_int");
  const Json* n = json_get(sym, "as_name");
  const Json* value = sym.is_object() ? json_get(sym, is_bool ? "as_bool" : "as_int") : nullptr;
  if (n && n->is_string()) {
    const Json* v = json_get(is_bool ? *sym_bool_values_ : *sym_int_values_, n->get<std::string>());
    if (!v)
      return corrupt("node '", name, "' (aten::item) outputs unknown symbolic value '",
                     n->get<std::string>(), "'");
    value = json_get(*v, is_bool ? "as_bool" : "as_int");
  }
  if (value) {
    // Torch specialised the value (torch._check(ok.item()) made it True): the symbol is this
    // node's own, its range that one value, so a run that reads another fails as torch's does.
    int64_t c = 0;
    if (is_bool && value->is_boolean()) {
      c = value->get<bool>();
    } else {
      TIR_ASSIGN_OR_RETURN(c, json_int(*value));
    }
    const int64_t idx = symbol_index(scope_prefix_ + name + ".item");
    symbols_[idx].min = symbols_[idx].max = symbols_[idx].hint = c;
    return idx;
  }
  const std::string text = sym_text(out);
  std::vector<SymTerm> terms;
  if (!text.empty()) {
    auto parsed = parse_sym_expr(text, [this](std::string_view s) { return symbol_index(s); });
    if (parsed.ok()) terms = std::move(parsed).value();
  }
  // An int is its unbacked symbol u0; a bool is Eq(u0, 1), u0 in [0, 1] its value as an int.
  if (is_bool && terms.size() == 3 && terms[0].op == fb::ExprOp::Sym &&
      terms[1].op == fb::ExprOp::Const && terms[1].value == 1 && terms[2].op == fb::ExprOp::Eq)
    terms.resize(1);
  if (terms.size() != 1 || terms[0].op != fb::ExprOp::Sym)
    return unsupported("node '", name, "' (aten::item): its value '", text,
                       "' is not one symbol of the program");
  return terms[0].value;
}

Result<int32_t> GraphBuilder::add_sym_int_output(const std::string& name) {
  return add_scalar_output(name, {{"as_sym_int", {{"as_name", name}}}}, DType::kInt64);
}

Result<int32_t> GraphBuilder::add_scalar_output(const std::string& name, const Json& value,
                                                DType dtype) {
  const std::string op = "aten::scalar_tensor";
  const AtenSchema* schema = find_aten_schema(op);
  if (!schema) return corrupt("no schema for ", op);
  // torch serde ScalarType: LONG 5, DOUBLE 8, BOOL 12
  const int64_t serde = dtype == DType::kInt64 ? 5 : dtype == DType::kFloat64 ? 8 : 12;
  const std::string node = name + "_tensor";
  std::vector<ArgOffset> args;
  const Json as_dtype = {{"as_scalar_type", serde}};
  for (const AtenArg& sa : schema->args) {
    Result<ArgOffset> a = sa.name == "s"       ? convert_arg(sa.name, value, &sa, node)
                          : sa.name == "dtype" ? convert_arg(sa.name, as_dtype, &sa, node)
                                               : default_arg(sa, node);
    TIR_RETURN_IF_ERROR(a.status());
    args.push_back(*a);
  }
  TIR_ASSIGN_OR_RETURN(const int32_t v,
                       add_value(name, fb::ValueKind::Tensor, fb::ValueSource::Activation, -1,
                                 dtype, 0, "", /*scalar_tensor=*/true));
  nodes_.push_back(fb::CreateNode(*fbb_, fbb_->CreateString(node), fbb_->CreateString(op),
                                  fbb_->CreateVector(args), fbb_->CreateVector<int32_t>({v}),
                                  fbb_->CreateString(""), fbb_->CreateString(""),
                                  fbb_->CreateString("")));
  node_ops_.push_back({op, node});
  return v;
}

}  // namespace tir::importer
