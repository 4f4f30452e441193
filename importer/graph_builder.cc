#include "importer/graph_builder.h"

#include <algorithm>
#include <cctype>

#include "core/read_limits.h"
#include "core/tensor.h"
#include "importer/graph_builder_impl.h"
#include "ir/model.h"

namespace tir::importer {
namespace {

// A range bound: int, null / "Infinity" / huge (unbounded), or "-Infinity".
int64_t range_bound(const Json* j, int64_t unbounded) {
  if (!j || j->is_null()) return unbounded;
  if (j->is_number_integer()) {
    if (j->is_number_unsigned() && j->get<uint64_t>() > uint64_t(INT64_MAX)) return INT64_MAX;
    return j->get<int64_t>();
  }
  if (j->is_number_float()) {
    const double d = j->get<double>();
    if (d >= 9.2e18) return INT64_MAX;
    if (d <= -9.2e18) return INT64_MIN;
    return static_cast<int64_t>(d);
  }
  if (j->is_string()) return j->get<std::string>().starts_with("-") ? INT64_MIN : INT64_MAX;
  return unbounded;
}

}  // namespace

int64_t GraphBuilder::symbol_index(std::string_view name) {
  auto it = symbol_index_.find(std::string(name));
  if (it != symbol_index_.end()) return it->second;
  const int64_t idx = static_cast<int64_t>(symbols_.size());
  symbols_.push_back(SymbolRec{std::string(name)});
  symbol_index_.emplace(std::string(name), idx);
  return idx;
}

Result<flatbuffers::Offset<fb::SymExpr>> GraphBuilder::sym_expr(const std::string& text,
                                                                std::vector<SymTerm>* out_terms) {
  auto parsed = parse_sym_expr(text, [this](std::string_view n) { return symbol_index(n); });
  if (!parsed.ok()) return parsed.status().with_context("'" + p_.file + "'");
  std::vector<fb::ExprTerm> terms;
  for (const SymTerm& t : *parsed) terms.emplace_back(t.op, t.value);
  if (out_terms) *out_terms = std::move(parsed).value();
  return fb::CreateSymExpr(*fbb_, fbb_->CreateVectorOfStructs(terms), fbb_->CreateString(text));
}

Status GraphBuilder::read_symbols() {
  const Json& ranges = member_or_empty(p_.doc, "range_constraints");
  for (const auto& [name, r] : ranges.items()) {
    // Keys such as "8*s69" constrain a derived expression; its range follows from the
    // root symbol's, so only plain symbol names become symbols.
    const bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                       std::all_of(name.begin(), name.end(), [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                       });
    if (!plain) continue;
    const int64_t idx = symbol_index(name);
    // A size is never negative; an unbacked symbol (u0: an `.item()` value, a storage
    // offset) may be, and an unbounded one (min_val None) is unbounded below.
    const bool unbacked =
        name.size() > 1 && name[0] == 'u' && std::all_of(name.begin() + 1, name.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c));
        });
    symbols_[idx].min = range_bound(json_get(r, "min_val"), unbacked ? INT64_MIN : 0);
    symbols_[idx].max = range_bound(json_get(r, "max_val"), INT64_MAX);
    if (!unbacked && symbols_[idx].min < 0) symbols_[idx].min = 0;
  }
  return ok_status();
}

Result<int32_t> GraphBuilder::add_value(const std::string& name, fb::ValueKind kind,
                                        fb::ValueSource source, int32_t index, DType scalar_dtype,
                                        flatbuffers::Offset<fb::SymExpr> expr,
                                        const std::string& meta_name, bool scalar_tensor) {
  const std::string key = scope_prefix_ + name;  // unique across inlined subgraphs
  if (value_index_.count(key) || (scope_ && scope_->count(name)))
    return corrupt("value '", key, "' is defined twice");
  DType dtype = scalar_dtype;
  std::vector<flatbuffers::Offset<fb::Dim>> dims;
  const std::string& meta_key = meta_name.empty() ? name : meta_name;
  const Json* meta = kind == fb::ValueKind::Tensor ? json_get(*tensor_values_, meta_key) : nullptr;
  // A tensor without metadata is None (see README), unless the importer makes it: a 0-dim
  // tensor of `scalar_dtype` (a SymInt program output, scalar_binding.cc).
  if (kind == fb::ValueKind::Tensor && !meta && !scalar_tensor) kind = fb::ValueKind::None;
  if (meta) {
    const Json* dt = json_get(*meta, "dtype");
    dtype =
        dt && dt->is_number_integer() ? dtype_from_serde(dt->get<int64_t>()) : DType::kUndefined;
    if (dtype == DType::kUndefined)
      return unsupported("value '", name, "' has unsupported dtype ",
                         dt ? json_preview(*dt) : "null", " (torch serde ScalarType)");
    const Json* sizes = json_get(*meta, "sizes");
    if (!sizes || !sizes->is_array()) return corrupt("value '", name, "' has no sizes");
    if (sizes->size() > size_t(kMaxRank))
      return unsupported("value '", name, "' has rank ", sizes->size(), " (max ", kMaxRank, ")");
    for (const Json& s : *sizes) {
      TIR_ASSIGN_OR_RETURN(auto u, json_union(s));
      if (u.first == "as_int") {
        TIR_ASSIGN_OR_RETURN(const int64_t v, json_int(*u.second));
        if (v < 0) return corrupt("value '", name, "' has a negative size");
        dims.push_back(fb::CreateDim(*fbb_, v));
      } else if (u.first == "as_expr") {
        const Json* text = json_get(*u.second, "expr_str");
        if (!text || !text->is_string()) return corrupt("value '", name, "' has a bad as_expr");
        int64_t hint = -1;
        if (const Json* h = json_get(*u.second, "hint"); h && h->is_object())
          if (const Json* hi = json_get(*h, "as_int"); hi && hi->is_number_integer())
            hint = hi->get<int64_t>();
        std::vector<SymTerm> terms;
        TIR_ASSIGN_OR_RETURN(auto expr, sym_expr(text->get<std::string>(), &terms));
        if (terms.size() == 1 && terms[0].op == fb::ExprOp::Sym && hint >= 0 &&
            symbols_[terms[0].value].hint < 0)
          symbols_[terms[0].value].hint = hint;
        dims.push_back(fb::CreateDim(*fbb_, hint, expr));
      } else {
        return corrupt("value '", name, "' has a size of kind ", u.first);
      }
    }
  }
  const auto idx = static_cast<int32_t>(values_.size());
  values_.push_back(fb::CreateValue(*fbb_, fbb_->CreateString(key), kind, ir::to_fb_dtype(dtype),
                                    fbb_->CreateVector(dims), source, index, expr));
  value_index_.emplace(key, idx);
  value_refs_.push_back({source, index});
  value_meta_names_.push_back(meta_key);
  if (scope_) scope_->emplace(name, idx);
  return idx;
}

Status GraphBuilder::read_inputs() {
  const Json& sig = member_or_empty(member_or_empty(p_.doc, "graph_module"), "signature");
  const Json* specs = json_get(sig, "input_specs");
  if (!specs || !specs->is_array()) return corrupt("program has no input_specs");
  for (const Json& spec : *specs) {
    json_blame_clear();
    Status s = read_input(spec);
    if (!s.ok() && !json_blamed()) json_blame(spec);
    TIR_RETURN_IF_ERROR(s);
  }
  return ok_status();
}

Status GraphBuilder::read_input(const Json& spec) {
  {
    TIR_ASSIGN_OR_RETURN(auto u, json_union(spec));
    // Not a structured binding: the lambdas below capture them (clang 14).
    const std::string kind = u.first;
    const Json* body = u.second;
    const Json* arg = json_get(*body, "arg");
    auto placeholder = [&]() -> Result<std::string> {
      const Json* n = arg ? json_get(*arg, "name") : nullptr;
      if (!n || !n->is_string()) return corrupt("input spec '", kind, "' has no arg name");
      return n->get<std::string>();
    };
    auto string_field = [&](const char* key) -> Result<std::string> {
      const Json* f = json_get(*body, key);
      if (!f || !f->is_string()) return corrupt("input spec '", kind, "' has no ", key);
      return f->get<std::string>();
    };
    if (kind == "user_input") {
      if (!arg) return corrupt("user_input spec without arg");
      TIR_ASSIGN_OR_RETURN(auto a, json_union(*arg));
      if (a.first == "as_tensor" || a.first == "as_sym_int") {
        const Json* n = json_get(*a.second, a.first == "as_tensor" ? "name" : "as_name");
        if (!n || !n->is_string()) return unsupported("a constant symbolic user input");
        const bool tensor = a.first == "as_tensor";
        flatbuffers::Offset<fb::SymExpr> expr = 0;  // what binding solves for a SymInt input
        if (!tensor) {
          const std::string name = n->get<std::string>();
          TIR_ASSIGN_OR_RETURN(expr, named_sym(name, "user input '" + name + "'"));
        }
        TIR_ASSIGN_OR_RETURN(
            const int32_t v,
            add_value(n->get<std::string>(), tensor ? fb::ValueKind::Tensor : fb::ValueKind::SymInt,
                      fb::ValueSource::UserInput, -1, DType::kInt64, expr));
        inputs_.push_back(v);
      } else {
        return unsupported("user input of kind ", a.first, " is not supported yet");
      }
    } else if (kind == "constant_input") {
      TIR_ASSIGN_OR_RETURN(std::string name, string_field("name"));
      const Json* value = json_get(*body, "value");
      if (!value) return corrupt("constant_input '", name, "' has no value");
      literals_[name] = value;
    } else if (kind == "parameter" || kind == "buffer") {
      TIR_ASSIGN_OR_RETURN(std::string name, placeholder());
      TIR_ASSIGN_OR_RETURN(std::string fqn,
                           string_field(kind == "parameter" ? "parameter_name" : "buffer_name"));
      const Json* persistent = json_get(*body, "persistent");
      const bool is_weight = kind == "parameter" || !persistent || !persistent->is_boolean() ||
                             persistent->get<bool>();
      if (is_weight) {
        TIR_ASSIGN_OR_RETURN(const int32_t w, weight_for(fqn, kind == "buffer"));
        TIR_RETURN_IF_ERROR(
            check_placeholder(name, fqn, weights_[w].spec.dtype, weights_[w].spec.shape));
        TIR_RETURN_IF_ERROR(
            add_value(name, fb::ValueKind::Tensor, fb::ValueSource::Weight, w).status());
      } else {
        TIR_ASSIGN_OR_RETURN(const int32_t c, constant_for(fqn));
        TIR_RETURN_IF_ERROR(check_placeholder(name, fqn, constants_[c].dtype, constants_[c].shape));
        TIR_RETURN_IF_ERROR(
            add_value(name, fb::ValueKind::Tensor, fb::ValueSource::Constant, c).status());
      }
    } else if (kind == "tensor_constant") {
      TIR_ASSIGN_OR_RETURN(std::string name, placeholder());
      TIR_ASSIGN_OR_RETURN(std::string fqn, string_field("tensor_constant_name"));
      TIR_ASSIGN_OR_RETURN(const int32_t c, constant_for(fqn));
      TIR_RETURN_IF_ERROR(check_placeholder(name, fqn, constants_[c].dtype, constants_[c].shape));
      TIR_RETURN_IF_ERROR(
          add_value(name, fb::ValueKind::Tensor, fb::ValueSource::Constant, c).status());
    } else if (kind == "token") {
      TIR_ASSIGN_OR_RETURN(std::string name, placeholder());
      TIR_RETURN_IF_ERROR(
          add_value(name, fb::ValueKind::None, fb::ValueSource::Activation, -1).status());
    } else {
      return unsupported("input spec '", kind, "' (e.g. custom objects) is not supported yet");
    }
  }
  return ok_status();
}

Status GraphBuilder::read_nodes() {
  const Json* nodes = json_get(*graph_, "nodes");
  if (!nodes || !nodes->is_array()) return corrupt("graph has no nodes list");
  if (const uint64_t limit = read_limits().max_nodes; nodes->size() > limit) {
    json_blame(*nodes);
    return corrupt("graph has ", nodes->size(), " nodes, more than the limit of ", limit,
                   " (--max-nodes)");
  }
  for (size_t i = 0; i < nodes->size(); ++i) {
    json_blame_clear();
    Status s = add_node((*nodes)[i], i);
    if (!s.ok() && !json_blamed()) json_blame((*nodes)[i]);
    TIR_RETURN_IF_ERROR(s);
  }
  return ok_status();
}

Status GraphBuilder::read_outputs() {
  const Json& sig = member_or_empty(member_or_empty(p_.doc, "graph_module"), "signature");
  const Json* specs = json_get(sig, "output_specs");
  if (!specs || !specs->is_array()) return corrupt("program has no output_specs");
  int k = 0;
  for (const Json& spec : *specs) {
    TIR_ASSIGN_OR_RETURN(auto u, json_union(spec));
    const auto& [kind, body] = u;
    const Json* arg = json_get(*body, "arg");
    if (!arg) return corrupt("output spec '", kind, "' has no arg");
    if (kind == "token") continue;
    // A parameter the program writes (RWKV rescales its weights in place under no_grad in
    // eval mode) is state as a buffer is: the new value is what the next run reads.
    const bool state = kind == "buffer_mutation" || kind == "parameter_mutation";
    const bool input_mutation = kind == "user_input_mutation";
    if (kind != "user_output" && kind != "loss_output" && !state && !input_mutation)
      return unsupported("output spec '", kind, "' is not supported yet");
    int32_t v = -1;
    std::string name;
    if (const Json* n = json_get(*arg, "name"); n && n->is_string()) {
      name = n->get<std::string>();  // loss_output / *_mutation: a TensorArgument
    } else {
      TIR_ASSIGN_OR_RETURN(auto a, json_union(*arg));
      const Json* n2 = json_get(*a.second, a.first == "as_tensor" ? "name" : "as_name");
      if (a.first == "as_none") {
        TIR_ASSIGN_OR_RETURN(v, add_value("output_none_" + std::to_string(k), fb::ValueKind::None,
                                          fb::ValueSource::Activation, -1));
      } else if ((a.first == "as_tensor" || a.first == "as_sym_int") && n2 && n2->is_string()) {
        name = n2->get<std::string>();
      } else if (a.first == "as_int" || a.first == "as_float" || a.first == "as_bool") {
        // A constant torch folded (`return logits, self.num_labels`): a 0-dim tensor.
        const DType dt = a.first == "as_int"     ? DType::kInt64
                         : a.first == "as_float" ? DType::kFloat64
                                                 : DType::kBool;
        TIR_ASSIGN_OR_RETURN(v,
                             add_scalar_output("output_constant_" + std::to_string(k), *arg, dt));
      } else {
        return unsupported("output ", k, " is a constant (", a.first, "), not supported yet");
      }
    }
    if (v < 0) {
      auto it = value_index_.find(name);
      if (it == value_index_.end() && json_get(*sym_int_values_, name)) {
        TIR_ASSIGN_OR_RETURN(v, add_sym_int_output(name));
        it = value_index_.find(name);
      }
      if (it == value_index_.end()) return corrupt("output '", name, "' is not a graph value");
      TIR_ASSIGN_OR_RETURN(v, current_value(it->second, NodeSite{"output", "", "", ""}));
    }
    if (input_mutation) {
      TIR_ASSIGN_OR_RETURN(const int32_t input, mutated_input(*body));
      input_mutations_.push_back(fb::CreateInputMutation(*fbb_, v, input));
      input_mutation_inputs_.push_back(input);
    } else if (state) {
      const char* field = kind == "buffer_mutation" ? "buffer_name" : "parameter_name";
      const Json* b = json_get(*body, field);
      if (!b || !b->is_string()) return corrupt(kind, " without ", field);
      mutations_.push_back(
          fb::CreateBufferMutation(*fbb_, v, fbb_->CreateString(b->get<std::string>())));
    } else {
      outputs_.push_back(v);
      ++k;
    }
  }
  // The training IR keeps in-place ops on user inputs (x.add_(y), a write through a slice of
  // x) with no output spec: an input whose value the importer superseded is written too.
  std::vector<bool> written(inputs_.size());
  for (const auto& mu : input_mutation_inputs_) written[size_t(mu)] = true;
  for (size_t k = 0; k < inputs_.size(); ++k) {
    if (written[k]) continue;
    TIR_ASSIGN_OR_RETURN(const int32_t now,
                         current_value(inputs_[k], NodeSite{"output", "", "", ""}));
    if (now == inputs_[k]) continue;
    input_mutations_.push_back(fb::CreateInputMutation(*fbb_, now, int32_t(k)));
  }
  return ok_status();
}

Result<int32_t> GraphBuilder::mutated_input(const Json& spec) {
  const Json* n = json_get(spec, "user_input_name");
  if (!n || !n->is_string()) return corrupt("user_input_mutation without user_input_name");
  const std::string name = n->get<std::string>();
  const auto it = value_index_.find(name);
  for (size_t k = 0; it != value_index_.end() && k < inputs_.size(); ++k)
    if (inputs_[k] == it->second) return int32_t(k);
  return corrupt("user_input_mutation of '", name, "', which is not a user input");
}

Result<GraphPlan> GraphBuilder::build(const std::string& method_name) {
  graph_ = json_get(member_or_empty(p_.doc, "graph_module"), "graph");
  if (!graph_ || !graph_->is_object()) return corrupt("program has no graph_module.graph");
  tensor_values_ = &member_or_empty(*graph_, "tensor_values");
  sym_int_values_ = &member_or_empty(*graph_, "sym_int_values");
  sym_bool_values_ = &member_or_empty(*graph_, "sym_bool_values");
  TIR_RETURN_IF_ERROR(read_symbols());
  TIR_RETURN_IF_ERROR(read_inputs());
  TIR_RETURN_IF_ERROR(read_nodes());
  TIR_RETURN_IF_ERROR(read_outputs());

  std::vector<flatbuffers::Offset<fb::Symbol>> symbols;
  for (const SymbolRec& s : symbols_)
    symbols.push_back(fb::CreateSymbol(*fbb_, fbb_->CreateString(s.name), s.min, s.max, s.hint));
  GraphPlan plan;
  plan.method = fb::CreateMethod(
      *fbb_, fbb_->CreateString(method_name), fbb_->CreateVector(values_),
      fbb_->CreateVector(nodes_), fbb_->CreateVector(inputs_), fbb_->CreateVector(outputs_),
      fbb_->CreateVector(mutations_), fbb_->CreateVector(symbols), fbb_->CreateVector(subgraphs_),
      fbb_->CreateVector(input_mutations_));
  plan.num_values = values_.size();
  plan.num_nodes = nodes_.size();
  plan.node_ops = std::move(node_ops_);
  return plan;
}

namespace {

/// Adds where the error is: the archive member and the JSON pointer of the blamed field
/// ("'m.pt2': models/model.json /graph_module/graph/nodes/3/inputs/0: ..."), and the
/// archive when the message lacks it. Untrusted text in the message is escaped.
Status locate_error(const Status& s, const Program& p) {
  std::string msg = s.message();
  const std::string prefix = "'" + p.file + "': ";
  if (msg.starts_with(prefix)) msg = msg.substr(prefix.size());
  std::string where;
  const Json* blamed = json_blamed();
  const std::string doc_member =
      p.doc_member.empty() ? "models/" + p.model_name + ".json" : p.doc_member;
  for (auto [root, member] :
       {std::pair(&p.doc, &doc_member), std::pair(&p.weights_config, &p.weights_source),
        std::pair(&p.constants_config, &p.constants_source)}) {
    if (const std::string ptr = json_pointer_to(*root, blamed); !ptr.empty()) {
      where = *member + " " + ptr + ": ";
      break;
    }
  }
  return Status(s.code(), prefix + where + msg);
}

}  // namespace

Result<GraphPlan> build_method(const Program& program, const Pt2Archive& archive, int archive_index,
                               const std::string& method_name, ModelTables* tables) {
  json_blame_clear();
  Result<GraphPlan> plan = [&]() -> Result<GraphPlan> {
    try {
      GraphBuilder b(program, archive, archive_index, *tables);
      return b.build(method_name);
    } catch (const Json::exception& e) {  // a field of an unexpected JSON type
      return make_error(StatusCode::kCorrupt, "malformed program JSON (", e.what(), ")");
    }
  }();
  if (plan.ok()) return plan;
  Status located = locate_error(plan.status(), program);
  json_blame_clear();
  return located;
}

Result<GraphPlan> build_graph(const Program& program, const Pt2Archive& archive,
                              const std::string& method_name) {
  ModelTables tables;
  TIR_ASSIGN_OR_RETURN(GraphPlan plan, build_method(program, archive, 0, method_name, &tables));
  plan.weights = std::move(tables.weights);
  plan.constants = std::move(tables.constants);
  plan.fbb = std::move(tables.fbb);
  return plan;
}

}  // namespace tir::importer
