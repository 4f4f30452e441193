#include "tooling/inspect/inspect_model.h"

#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "ir/model.h"
#include "ir/sym_expr.h"
#include "runtime/weights/data_loader.h"
#include "tooling/inspect/graph_dot.h"

namespace tir::tools {
namespace {

using nlohmann::json;
using Symbols = flatbuffers::Vector<flatbuffers::Offset<ir::fb::Symbol>>;

json value_json(const Symbols* symbols, const ir::fb::Value& v) {
  json dims = json::array();
  if (v.sizes())
    for (const ir::fb::Dim* d : *v.sizes()) {
      if (d->expr())
        dims.push_back(ir::format_sym_expr(*d->expr(), symbols));
      else
        dims.push_back(d->value());
    }
  return {
      {"name", ir::str(v.name())}, {"dtype", dtype_name(ir::to_dtype(v.dtype()))}, {"shape", dims}};
}

/// A cond node: its predicate (a value or a symbolic bool) and the subgraph of each branch.
json cond_json(const ir::fb::Method& m, const ir::fb::Node& n, const Symbols* symbols) {
  json j = {{"node", ir::str(n.name())}};
  const ir::fb::Argument& pred = *n.args()->Get(0);
  if (const auto* t = pred.value_as_TensorArg())
    j["pred"] = {{"tensor", ir::str(m.values()->Get(t->value())->name())}};
  else if (const auto* e = pred.value_as_SymIntArg())
    j["pred"] = {{"symbolic", ir::format_sym_expr(*e->value(), symbols)}};
  else if (const auto* b = pred.value_as_BoolArg())
    j["pred"] = {{"constant", b->value()}};
  const char* keys[] = {"true", "false"};
  for (int b = 0; b < 2; ++b)
    j[keys[b]] =
        ir::str(m.subgraphs()->Get(n.args()->Get(1 + b)->value_as_GraphArg()->index())->name());
  return j;
}

/// `symbols`: the top-level method's, which its subgraphs share.
json method_json(const ir::fb::Method& m, const Symbols* symbols) {
  json j = {{"name", ir::str(m.name())}, {"nodes", m.nodes() ? m.nodes()->size() : 0}};
  json symbol_list = json::array();
  if (m.symbols())
    for (const ir::fb::Symbol* s : *m.symbols())
      symbol_list.push_back({{"name", ir::str(s->name())},
                             {"min", s->min()},
                             {"max", s->max() == INT64_MAX ? json(nullptr) : json(s->max())},
                             {"hint", s->hint()}});
  j["symbols"] = symbol_list;
  for (const char* key : {"inputs", "outputs"}) {
    json list = json::array();
    const auto* idx = std::string(key) == "inputs" ? m.inputs() : m.outputs();
    if (idx)
      for (int32_t v : *idx) list.push_back(value_json(symbols, *m.values()->Get(v)));
    j[key] = list;
  }
  std::map<std::string, int> ops;
  json conds = json::array();
  if (m.nodes())
    for (const ir::fb::Node* n : *m.nodes()) {
      ++ops[std::string(ir::str(n->op()))];
      if (ir::str(n->op()) == ir::kCondOp) conds.push_back(cond_json(m, *n, symbols));
    }
  j["ops"] = ops;
  if (!conds.empty()) j["conds"] = conds;
  if (m.subgraphs() && m.subgraphs()->size() > 0) {
    j["subgraphs"] = json::array();
    for (const ir::fb::Method* sub : *m.subgraphs())
      j["subgraphs"].push_back(method_json(*sub, symbols));
  }
  return j;
}

std::string shape_text(const json& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (shape[i].is_string() ? shape[i].get<std::string>()
                                                 : std::to_string(shape[i].get<int64_t>()));
  return s + "]";
}

void print_method(const json& m, const char* kind, const std::string& indent, std::ostream& out) {
  out << indent << kind << " " << m["name"].get<std::string>() << " (" << m["nodes"] << " nodes)\n";
  for (const json& s : m["symbols"])
    out << indent << "  symbol " << s["name"].get<std::string>() << " in [" << s["min"] << ", "
        << (s["max"].is_null() ? std::string("inf") : s["max"].dump()) << "]\n";
  for (const json& in : m["inputs"])
    out << indent << "  input  " << in["name"].get<std::string>() << ": "
        << in["dtype"].get<std::string>() << shape_text(in["shape"]) << "\n";
  for (const json& outv : m["outputs"])
    out << indent << "  output " << outv["name"].get<std::string>() << ": "
        << outv["dtype"].get<std::string>() << shape_text(outv["shape"]) << "\n";
  out << indent << "  ops:";
  for (const auto& [op, n] : m["ops"].items()) out << " " << op << " x" << n.get<int>() << ";";
  out << "\n";
  if (m.contains("conds"))
    for (const json& c : m["conds"])
      for (const auto& [kind, pred] : c["pred"].items())
        out << indent << "  cond '" << c["node"].get<std::string>() << "': if " << kind << " "
            << (pred.is_string() ? pred.get<std::string>() : pred.dump()) << " then "
            << c["true"].get<std::string>() << " else " << c["false"].get<std::string>() << "\n";
  if (m.contains("subgraphs"))
    for (const json& sub : m["subgraphs"]) print_method(sub, "subgraph", indent + "  ", out);
}

}  // namespace

Status inspect_model(const InspectOptions& o, std::ostream& out) {
  TIR_ASSIGN_OR_RETURN(auto src, data_source_mmap(o.model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(src->bytes(), o.model_path));
  const ir::fb::Model& model = view.model();
  json j = {{"file", o.model_path},
            {"version", model.version()},
            {"producer", ir::str(model.producer())}};
  uint64_t weight_bytes = 0;
  if (model.weights())
    for (const ir::fb::WeightRef* w : *model.weights()) weight_bytes += w->byte_size();
  j["weights"] = {{"count", model.weights() ? model.weights()->size() : 0},
                  {"bytes", weight_bytes}};
  j["constants"] = model.constants() ? model.constants()->size() : 0;
  j["methods"] = json::array();
  for (const ir::fb::Method* m : *model.methods())
    j["methods"].push_back(method_json(*m, m->symbols()));
  if (!o.dot_path.empty()) {
    DotOptions dot;
    dot.method =
        o.method.empty() ? std::string(ir::str(model.methods()->Get(0)->name())) : o.method;
    dot.note = "fused groups are formed at load by the runtime: `tirrun --dot` marks them";
    TIR_RETURN_IF_ERROR(graph_dot_save(view, o.model_path, dot, o.dot_path, o.svg_path));
    j["graph"] = {{"method", dot.method}, {"dot", o.dot_path}};
    if (!o.svg_path.empty()) j["graph"]["svg"] = o.svg_path;
  }
  if (o.json) {
    out << j.dump(1) << "\n";
    return ok_status();
  }
  out << o.model_path << ": " << j["producer"].get<std::string>() << "\n";
  out << "weights: " << j["weights"]["count"] << " tensors, " << weight_bytes << " bytes; "
      << j["constants"] << " constants\n";
  for (const json& m : j["methods"]) print_method(m, "method", "", out);
  if (j.contains("graph"))
    out << "graph of method " << j["graph"]["method"].get<std::string>() << ": " << o.dot_path
        << (o.svg_path.empty() ? "" : ", " + o.svg_path) << "\n";
  return ok_status();
}

}  // namespace tir::tools
