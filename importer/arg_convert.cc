// Node arguments: the JSON Argument union (or a schema default) -> the typed ArgValue union.
#include <cmath>

#include "importer/graph_builder_impl.h"
#include "ir/model.h"

namespace tir::importer {
namespace {

// "Optional[List[int]]" -> "List[int]".
std::string_view base_type(std::string_view t) {
  constexpr std::string_view kOpt = "Optional[";
  if (t.starts_with(kOpt) && t.ends_with("]"))
    t = t.substr(kOpt.size(), t.size() - kOpt.size() - 1);
  return t;
}

bool is_float_type(std::string_view t) { return t == "float"; }
bool is_int_list(std::string_view t) { return t == "List[int]" || t == "List[SymInt]"; }

int memory_format_from_name(std::string_view n) {  // torch serde MemoryFormat numbering
  if (n == "torch.contiguous_format") return 1;
  if (n == "torch.channels_last") return 2;
  if (n == "torch.channels_last_3d") return 3;
  if (n == "torch.preserve_format") return 4;
  return -1;
}

}  // namespace

Result<int32_t> GraphBuilder::tensor_ref(const Json& t, const std::string& where) {
  const Json* n = json_get(t, "name");
  if (!n || !n->is_string()) return corrupt(where, " has a tensor without a name");
  const auto& names = scope_ ? *scope_ : value_index_;
  auto it = names.find(n->get<std::string>());
  if (it == names.end()) return corrupt(where, " uses unknown value '", n->get<std::string>(), "'");
  return it->second;
}

Result<flatbuffers::Offset<fb::SymExpr>> GraphBuilder::named_sym(const std::string& name,
                                                                 const std::string& where) {
  const Json* s = json_get(*sym_int_values_, name);
  if (!s) s = json_get(*sym_bool_values_, name);
  if (!s) return corrupt(where, " uses unknown symbolic value '", name, "'");
  TIR_ASSIGN_OR_RETURN(auto u, json_union(*s));
  if (u.first == "as_int" || u.first == "as_bool") {
    const int64_t v =
        u.second->is_boolean() ? int64_t(u.second->get<bool>()) : u.second->get<int64_t>();
    const fb::ExprTerm term(fb::ExprOp::Const, v);
    return fb::CreateSymExpr(*fbb_, fbb_->CreateVectorOfStructs(&term, 1),
                             fbb_->CreateString(std::to_string(v)));
  }
  const Json* text = u.first == "as_expr" ? json_get(*u.second, "expr_str") : nullptr;
  if (!text || !text->is_string())
    return corrupt(where, " symbolic value '", name, "' has no expression");
  TIR_RETURN_IF_ERROR(check_no_storage_offset(text->get<std::string>(), where));
  return sym_expr(text->get<std::string>());
}

Result<ArgOffset> GraphBuilder::literal_arg(const std::string& name, const Json& value,
                                            const std::string& where) {
  auto& b = *fbb_;
  const auto n = b.CreateString(name);
  TIR_ASSIGN_OR_RETURN(auto u, json_union(value));
  const auto& [kind, v] = u;
  if (kind == "as_none")
    return fb::CreateArgument(b, n, fb::ArgValue::NoneArg, fb::CreateNoneArg(b).Union());
  if (kind == "as_int") {
    TIR_ASSIGN_OR_RETURN(const int64_t i, json_int(*v));
    return fb::CreateArgument(b, n, fb::ArgValue::IntArg, fb::CreateIntArg(b, i).Union());
  }
  if (kind == "as_float") {
    TIR_ASSIGN_OR_RETURN(const double f, json_float(*v));
    return fb::CreateArgument(b, n, fb::ArgValue::FloatArg, fb::CreateFloatArg(b, f).Union());
  }
  if (kind == "as_bool" && v->is_boolean())
    return fb::CreateArgument(b, n, fb::ArgValue::BoolArg,
                              fb::CreateBoolArg(b, v->get<bool>()).Union());
  if (kind == "as_string" && v->is_string())
    return fb::CreateArgument(
        b, n, fb::ArgValue::StringArg,
        fb::CreateStringArg(b, b.CreateString(v->get<std::string>())).Union());
  return unsupported(where, " is a constant input of kind ", kind);
}

Result<ArgOffset> GraphBuilder::convert_arg(const std::string& name, const Json& arg,
                                            const AtenArg* schema, const std::string& node) {
  const std::string where = "node '" + node + "' argument '" + name + "'";
  const std::string_view type = schema ? base_type(schema->type) : std::string_view();
  auto& b = *fbb_;
  TIR_ASSIGN_OR_RETURN(auto u, json_union(arg));
  const auto& [kind, v] = u;
  auto make = [&](fb::ArgValue t, flatbuffers::Offset<void> value) -> Result<ArgOffset> {
    return fb::CreateArgument(b, b.CreateString(name), t, value);
  };
  auto ints = [&](const Json& list) -> Result<std::vector<int64_t>> {
    std::vector<int64_t> out;
    if (!list.is_array()) return corrupt(where, " is not a list");
    for (const Json& e : list) {
      auto i = json_int(e);
      if (!i.ok()) return i.status().with_context("'" + p_.file + "': " + where);
      out.push_back(*i);
    }
    return out;
  };
  auto floats = [&](const Json& list) -> Result<std::vector<double>> {
    std::vector<double> out;
    if (!list.is_array()) return corrupt(where, " is not a list");
    for (const Json& e : list) {
      auto f = json_float(e);
      if (!f.ok()) return f.status().with_context("'" + p_.file + "': " + where);
      out.push_back(*f);
    }
    return out;
  };

  if (kind == "as_tensor") {
    const Json* n = json_get(*v, "name");
    if (n && n->is_string()) {
      if (auto lit = literals_.find(n->get<std::string>()); lit != literals_.end())
        return literal_arg(name, *lit->second, where);
    }
    TIR_ASSIGN_OR_RETURN(const int32_t idx, tensor_ref(*v, where));
    return make(fb::ArgValue::TensorArg, fb::CreateTensorArg(b, idx).Union());
  }
  if (kind == "as_tensors" || kind == "as_optional_tensors") {
    const bool optional = kind == "as_optional_tensors";
    if (!v->is_array()) return corrupt(where, " is not a list");
    std::vector<int32_t> idx;
    for (const Json& e : *v) {
      if (!optional) {
        TIR_ASSIGN_OR_RETURN(const int32_t i, tensor_ref(e, where));
        idx.push_back(i);
        continue;
      }
      TIR_ASSIGN_OR_RETURN(auto eu, json_union(e));
      if (eu.first == "as_none") {
        idx.push_back(-1);
      } else {
        TIR_ASSIGN_OR_RETURN(const int32_t i, tensor_ref(*eu.second, where));
        idx.push_back(i);
      }
    }
    return make(fb::ArgValue::TensorsArg,
                fb::CreateTensorsArg(b, b.CreateVector(idx), optional).Union());
  }
  if (kind == "as_optional_tensor") {  // schema >= 8.16: {"as_tensor": ...} | {"as_none": ...}
    TIR_ASSIGN_OR_RETURN(auto eu, json_union(*v));
    if (eu.first == "as_none") return make(fb::ArgValue::NoneArg, fb::CreateNoneArg(b).Union());
    TIR_ASSIGN_OR_RETURN(const int32_t i, tensor_ref(*eu.second, where));
    return make(fb::ArgValue::TensorArg, fb::CreateTensorArg(b, i).Union());
  }
  if (kind == "as_none") return make(fb::ArgValue::NoneArg, fb::CreateNoneArg(b).Union());
  if (kind == "as_int") {
    TIR_ASSIGN_OR_RETURN(const int64_t i, json_int(*v));
    if (is_float_type(type))
      return make(fb::ArgValue::FloatArg, fb::CreateFloatArg(b, double(i)).Union());
    return make(fb::ArgValue::IntArg, fb::CreateIntArg(b, i).Union());
  }
  if (kind == "as_float") {
    TIR_ASSIGN_OR_RETURN(const double f, json_float(*v));
    return make(fb::ArgValue::FloatArg, fb::CreateFloatArg(b, f).Union());
  }
  if (kind == "as_bool") {
    if (!v->is_boolean()) return corrupt(where, " is not a bool");
    return make(fb::ArgValue::BoolArg, fb::CreateBoolArg(b, v->get<bool>()).Union());
  }
  if (kind == "as_string") {
    if (!v->is_string()) return corrupt(where, " is not a string");
    return make(fb::ArgValue::StringArg,
                fb::CreateStringArg(b, b.CreateString(v->get<std::string>())).Union());
  }
  if (kind == "as_ints") {
    TIR_ASSIGN_OR_RETURN(auto list, ints(*v));
    if (type == "List[float]") {
      const std::vector<double> f(list.begin(), list.end());
      return make(fb::ArgValue::FloatsArg, fb::CreateFloatsArg(b, b.CreateVector(f)).Union());
    }
    return make(fb::ArgValue::IntsArg, fb::CreateIntsArg(b, b.CreateVector(list)).Union());
  }
  if (kind == "as_floats") {
    TIR_ASSIGN_OR_RETURN(auto list, floats(*v));
    return make(fb::ArgValue::FloatsArg, fb::CreateFloatsArg(b, b.CreateVector(list)).Union());
  }
  if (kind == "as_bools") {
    std::vector<uint8_t> list;
    if (!v->is_array()) return corrupt(where, " is not a list");
    for (const Json& e : *v) {
      if (!e.is_boolean()) return corrupt(where, " is not a list of bools");
      list.push_back(e.get<bool>());
    }
    return make(fb::ArgValue::BoolsArg, fb::CreateBoolsArg(b, b.CreateVector(list)).Union());
  }
  if (kind == "as_sym_int" || kind == "as_sym_bool" || kind == "as_sym_float") {
    TIR_ASSIGN_OR_RETURN(auto su, json_union(*v));
    if (su.first == "as_name" && su.second->is_string()) {
      if (kind == "as_sym_float") {  // a float `.item()` read: a 0-dim tensor (scalar_float.cc)
        const auto& names = scope_ ? *scope_ : value_index_;
        const auto it = names.find(su.second->get<std::string>());
        if (it == names.end()) return unsupported(where, " is a symbolic float");
        if (type != "Tensor")
          return unsupported(where, " is a float read with .item() ('", it->first, "'), passed as ",
                             schema ? schema->type : "an untyped argument",
                             "; tir passes such a float only as a Tensor argument");
        return make(fb::ArgValue::TensorArg, fb::CreateTensorArg(b, it->second).Union());
      }
      TIR_ASSIGN_OR_RETURN(auto e, named_sym(su.second->get<std::string>(), where));
      return make(fb::ArgValue::SymIntArg, fb::CreateSymIntArg(b, e).Union());
    }
    return convert_arg(name, Json{{su.first, *su.second}}, schema, node);
  }
  if (kind == "as_sym_ints") {
    if (!v->is_array()) return corrupt(where, " is not a list");
    bool all_static = true;
    for (const Json& e : *v) all_static = all_static && json_get(e, "as_int");
    if (all_static) {
      std::vector<int64_t> list;
      for (const Json& e : *v) {
        TIR_ASSIGN_OR_RETURN(const int64_t i, json_int(*json_get(e, "as_int")));
        list.push_back(i);
      }
      return make(fb::ArgValue::IntsArg, fb::CreateIntsArg(b, b.CreateVector(list)).Union());
    }
    std::vector<flatbuffers::Offset<fb::SymExpr>> exprs;
    for (const Json& e : *v) {
      TIR_ASSIGN_OR_RETURN(auto eu, json_union(e));
      if (eu.first == "as_int") {
        TIR_ASSIGN_OR_RETURN(const int64_t i, json_int(*eu.second));
        const fb::ExprTerm term(fb::ExprOp::Const, i);
        exprs.push_back(fb::CreateSymExpr(b, b.CreateVectorOfStructs(&term, 1),
                                          b.CreateString(std::to_string(i))));
      } else if (eu.first == "as_name" && eu.second->is_string()) {
        TIR_ASSIGN_OR_RETURN(auto ex, named_sym(eu.second->get<std::string>(), where));
        exprs.push_back(ex);
      } else {
        return corrupt(where, " has a SymInt of kind ", eu.first);
      }
    }
    return make(fb::ArgValue::SymIntsArg, fb::CreateSymIntsArg(b, b.CreateVector(exprs)).Union());
  }
  if (kind == "as_scalar_type") {
    TIR_ASSIGN_OR_RETURN(const int64_t st, json_int(*v));
    const DType d = dtype_from_serde(st);
    if (d == DType::kUndefined) return unsupported(where, " has unsupported dtype ", st);
    return make(fb::ArgValue::DTypeArg, fb::CreateDTypeArg(b, ir::to_fb_dtype(d)).Union());
  }
  if (kind == "as_memory_format" || kind == "as_layout") {
    TIR_ASSIGN_OR_RETURN(const int64_t e, json_int(*v));
    if (e < 0 || e > 127) return corrupt(where, " has a bad enum value ", e);
    if (kind == "as_layout")
      return make(fb::ArgValue::LayoutArg, fb::CreateLayoutArg(b, int8_t(e)).Union());
    return make(fb::ArgValue::MemoryFormatArg, fb::CreateMemoryFormatArg(b, int8_t(e)).Union());
  }
  if (kind == "as_device") {
    const Json* t = json_get(*v, "type");
    const Json* i = json_get(*v, "index");
    if (!t || !t->is_string()) return corrupt(where, " is a device without a type");
    const int32_t index = i && i->is_number_integer() ? i->get<int32_t>() : -1;
    return make(fb::ArgValue::DeviceArg,
                fb::CreateDeviceArg(b, b.CreateString(t->get<std::string>()), index).Union());
  }
  if (!schema && (kind == "as_graph" || kind == "as_custom_obj" || kind == "as_operator")) {
    // Schemaless nodes (HOPs) only, which no kernel runs: keep a readable reference.
    const Json* n = kind == "as_operator" ? v : json_get(*v, "name");
    const std::string text = n && n->is_string() ? n->get<std::string>() : kind;
    return make(fb::ArgValue::StringArg, fb::CreateStringArg(b, b.CreateString(text)).Union());
  }
  return unsupported(where, " has kind ", kind, ", which tir does not support yet");
}

Result<ArgOffset> GraphBuilder::default_arg(const AtenArg& s, const std::string& node) {
  const std::string where = "node '" + node + "' default of '" + s.name + "'";
  const std::string_view type = base_type(s.type);
  const Json& d = s.default_value;
  auto& b = *fbb_;
  auto make = [&](fb::ArgValue t, flatbuffers::Offset<void> value) -> Result<ArgOffset> {
    return fb::CreateArgument(b, b.CreateString(s.name), t, value);
  };
  if (d.is_null()) return make(fb::ArgValue::NoneArg, fb::CreateNoneArg(b).Union());
  if (d.is_boolean()) {
    if (type == "List[bool]" && s.n) {
      const std::vector<uint8_t> list(size_t(*s.n), d.get<bool>());
      return make(fb::ArgValue::BoolsArg, fb::CreateBoolsArg(b, b.CreateVector(list)).Union());
    }
    return make(fb::ArgValue::BoolArg, fb::CreateBoolArg(b, d.get<bool>()).Union());
  }
  if (d.is_number() || (d.is_string() && is_float_type(type))) {
    if (is_int_list(type) || type == "List[float]") {  // a scalar default for int[N]
      if (!s.n || *s.n < 0 || *s.n > 64) return unsupported(where, " is a scalar for a list");
      return convert_arg(s.name,
                         Json{{d.is_number_integer() ? "as_ints" : "as_floats",
                               Json(std::vector<Json>(size_t(*s.n), d))}},
                         &s, node);
    }
    if (d.is_number_integer() && !is_float_type(type))
      return convert_arg(s.name, Json{{"as_int", d}}, &s, node);
    TIR_ASSIGN_OR_RETURN(double f, json_float(d));
    return make(fb::ArgValue::FloatArg, fb::CreateFloatArg(b, f).Union());
  }
  if (d.is_string()) {
    const std::string& text = d.get_ref<const std::string&>();
    if (type == "ScalarType") {
      const DType dt = dtype_from_torch_name(text);
      if (dt == DType::kUndefined) return unsupported(where, " is dtype ", text);
      return make(fb::ArgValue::DTypeArg, fb::CreateDTypeArg(b, ir::to_fb_dtype(dt)).Union());
    }
    if (type == "MemoryFormat") {
      const int mf = memory_format_from_name(text);
      if (mf < 0) return unsupported(where, " is memory format ", text);
      return make(fb::ArgValue::MemoryFormatArg, fb::CreateMemoryFormatArg(b, int8_t(mf)).Union());
    }
    if (type == "Layout") {
      if (text != "torch.strided") return unsupported(where, " is layout ", text);
      return make(fb::ArgValue::LayoutArg, fb::CreateLayoutArg(b, 7).Union());
    }
    if (type == "Device") {
      const size_t colon = text.find(':');
      const int32_t index = colon == std::string::npos ? -1 : std::atoi(text.c_str() + colon + 1);
      return make(fb::ArgValue::DeviceArg,
                  fb::CreateDeviceArg(b, b.CreateString(text.substr(0, colon)), index).Union());
    }
    return make(fb::ArgValue::StringArg, fb::CreateStringArg(b, b.CreateString(text)).Union());
  }
  if (d.is_array()) {
    if (is_int_list(type)) return convert_arg(s.name, Json{{"as_ints", d}}, &s, node);
    if (type == "List[float]") return convert_arg(s.name, Json{{"as_floats", d}}, &s, node);
    if (type == "List[bool]") return convert_arg(s.name, Json{{"as_bools", d}}, &s, node);
    if ((type == "List[Tensor]" || type == "List[Optional[Tensor]]") && d.empty())
      return convert_arg(s.name, Json{{"as_tensors", d}}, &s, node);
  }
  return unsupported(where, " (", s.type, " = ", json_preview(d), ") cannot be represented");
}

}  // namespace tir::importer
