// `f = x.item()` of a floating-point tensor: torch names the value with an unbacked SymFloat
// (zuf0) that the program multiplies, adds and divides tensors by (`mul.Tensor(x, f)`) and
// combines in Python arithmetic (`_operator.mul(f, 2.0)`). tir's symbols are ints, and a float
// has no place in a shape: the value stays data, a 0-dim float64 tensor (what Python's float
// holds), computed by `squeeze` + `_to_copy(dtype=float64)` of the source. A Tensor argument
// that names it reads that tensor as torch reads a wrapped Python number (the op's declared
// output dtype is what it computes in); `_operator` arithmetic on it becomes the aten op on
// 0-dim float64 tensors, ints and literals made 0-dim tensors by `scalar_tensor`. Where the
// schema wants a number (`full(size, f)`, `clamp(x, max=f)`) the import fails with one line.
#include "importer/graph_builder_impl.h"

namespace tir::importer {
namespace {

constexpr int64_t kSerdeDouble = 8;  // torch serde ScalarType DOUBLE

/// The aten op `_operator::<name>` computes on two 0-dim tensors; empty: not one of them.
std::string_view float_arith_op(std::string_view op) {
  if (op == "_operator::add") return "aten::add.Tensor";
  if (op == "_operator::sub") return "aten::sub.Tensor";
  if (op == "_operator::mul") return "aten::mul.Tensor";
  if (op == "_operator::truediv") return "aten::div.Tensor";
  if (op == "_operator::neg") return "aten::neg";
  return {};
}

}  // namespace

Status GraphBuilder::emit_internal_node(const std::string& op, const std::string& node,
                                        const Json& inputs, const std::string& out_name,
                                        DType out_dtype) {
  const AtenSchema* schema = find_aten_schema(op);
  if (!schema) return corrupt("no schema for ", op);
  std::vector<ArgOffset> args;
  TIR_RETURN_IF_ERROR(schema_args(inputs, op, node, *schema, &args));
  TIR_ASSIGN_OR_RETURN(const int32_t v,
                       add_value(out_name, fb::ValueKind::Tensor, fb::ValueSource::Activation, -1,
                                 out_dtype, 0, "", /*scalar_tensor=*/true));
  const std::string full = scope_prefix_ + node;
  nodes_.push_back(fb::CreateNode(*fbb_, fbb_->CreateString(full), fbb_->CreateString(op),
                                  fbb_->CreateVector(args), fbb_->CreateVector<int32_t>({v}),
                                  fbb_->CreateString(""), fbb_->CreateString(""),
                                  fbb_->CreateString("")));
  node_ops_.push_back({op, full});
  float_scalars_.insert(scope_prefix_ + out_name);
  return ok_status();
}

Status GraphBuilder::add_float_item(const Json& self, const Json& out, const std::string& name) {
  const Json* n = json_get(out["as_sym_float"], "as_name");
  if (!n || !n->is_string())
    return unsupported("node '", name, "' reads a float with .item() that torch made a constant");
  const Json* t = json_get(self, "as_tensor");
  const Json* tn = t ? json_get(*t, "name") : nullptr;
  const Json* meta =
      tn && tn->is_string() ? json_get(*tensor_values_, tn->get<std::string>()) : nullptr;
  const Json* dt = meta ? json_get(*meta, "dtype") : nullptr;
  if (!dt || !dt->is_number_integer())
    return corrupt("node '", name, "' (aten::item) reads a tensor without metadata");
  const DType src = dtype_from_serde(dt->get<int64_t>());
  const std::string squeezed = n->get<std::string>() + ".squeezed";
  TIR_RETURN_IF_ERROR(emit_internal_node("aten::squeeze", name + "_squeeze",
                                         Json::array({Json{{"name", "self"}, {"arg", self}}}),
                                         squeezed, src));
  const Json copy =
      Json::array({Json{{"name", "self"}, {"arg", {{"as_tensor", {{"name", squeezed}}}}}},
                   Json{{"name", "dtype"}, {"arg", {{"as_scalar_type", kSerdeDouble}}}}});
  return emit_internal_node("aten::_to_copy", name, copy, n->get<std::string>(), DType::kFloat64);
}

bool GraphBuilder::is_float_arith(const Json& node, const std::string& op) const {
  if (float_arith_op(op).empty()) return false;
  const Json* outs = json_get(node, "outputs");
  return outs && outs->is_array() && outs->size() == 1 && (*outs)[0].contains("as_sym_float") &&
         !float_scalars_.empty();
}

Status GraphBuilder::add_float_arith(const Json& node, const std::string& op,
                                     const std::string& name) {
  const Json& inputs = *json_get(node, "inputs");
  const Json* out = json_get(json_get(node, "outputs")->at(0)["as_sym_float"], "as_name");
  if (!out || !out->is_string()) return corrupt("node '", name, "' has an unnamed output");
  const std::string_view aten = float_arith_op(op);
  const bool unary = aten == "aten::neg";
  if (inputs.size() != (unary ? 1u : 2u))
    return corrupt("node '", name, "' (", op, ") has ", inputs.size(), " inputs");
  const auto& names = scope_ ? *scope_ : value_index_;
  Json operands = Json::array();
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Json* a = json_get(inputs[k], "arg");
    if (!a) return corrupt("node '", name, "' has a malformed input");
    const Json* sf = json_get(*a, "as_sym_float");
    const Json* sn = sf ? json_get(*sf, "as_name") : nullptr;
    std::string tensor;
    if (sn && sn->is_string()) {
      tensor = sn->get<std::string>();
      if (!names.count(tensor))
        return unsupported("node '", name, "' computes with the symbolic float '", tensor,
                           "', which is not a value `.item()` read");
    } else {  // an int, a float literal or a SymInt: a 0-dim float64 tensor of it
      tensor = name + ".operand" + std::to_string(k);
      Json s = *a;
      if (const Json* f = json_get(*a, "as_sym_float")) s = *f;  // {"as_float": 2.0}
      const Json in =
          Json::array({Json{{"name", "s"}, {"arg", s}},
                       Json{{"name", "dtype"}, {"arg", {{"as_scalar_type", kSerdeDouble}}}}});
      TIR_RETURN_IF_ERROR(
          emit_internal_node("aten::scalar_tensor", tensor, in, tensor, DType::kFloat64));
    }
    operands.push_back(
        Json{{"name", k == 0 ? "self" : "other"}, {"arg", {{"as_tensor", {{"name", tensor}}}}}});
  }
  return emit_internal_node(std::string(aten), name, operands, out->get<std::string>(),
                            DType::kFloat64);
}

}  // namespace tir::importer
