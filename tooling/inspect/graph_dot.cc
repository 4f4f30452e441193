#include "tooling/inspect/graph_dot.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

#include "ir/model.h"
#include "runtime/weights/data_loader.h"

extern char** environ;

namespace tir::tools {
namespace {

const ir::fb::Method* find_method(const ir::ModelView& model, const std::string& name) {
  for (const ir::fb::Method* m : *model.model().methods())
    if (ir::str(m->name()) == name) return m;
  return nullptr;
}

/// Value ids a node reads (tensor operands).
std::vector<int32_t> node_inputs(const ir::fb::Node& n) {
  std::vector<int32_t> in;
  if (!n.args()) return in;
  for (const ir::fb::Argument* a : *n.args()) {
    if (const auto* t = a->value_as_TensorArg()) in.push_back(t->value());
    if (const auto* ts = a->value_as_TensorsArg())
      if (ts->values())
        for (int32_t v : *ts->values())
          if (v >= 0) in.push_back(v);
  }
  return in;
}

/// value id -> index of the node that writes it.
std::map<int32_t, int32_t> producers(const ir::fb::Method& m) {
  std::map<int32_t, int32_t> p;
  if (m.nodes())
    for (uint32_t i = 0; i < m.nodes()->size(); ++i)
      if (const auto* outs = m.nodes()->Get(i)->outputs())
        for (int32_t v : *outs) p[v] = int32_t(i);
  return p;
}

std::string dot_quote(std::string_view s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    if (c == '\n') {
      q += "\\n";
      continue;
    }
    q += c;
  }
  return q + "\"";
}

std::string value_text(const ir::fb::Value& v) {
  std::string s = std::string(ir::str(v.name())) + "\n" +
                  std::string(dtype_name(ir::to_dtype(v.dtype()))) + "[";
  if (v.sizes())
    for (uint32_t i = 0; i < v.sizes()->size(); ++i) {
      const ir::fb::Dim* d = v.sizes()->Get(i);
      s += (i ? ", " : "") + (d->expr() ? std::string("?") : std::to_string(d->value()));
    }
  return s + "]";
}

/// Module-path clusters: each path component opens a nested cluster holding its nodes.
struct Cluster {
  std::vector<int32_t> nodes;
  std::map<std::string, Cluster> children;
};

void emit_cluster(const Cluster& c, const std::string& path, const std::string& indent,
                  const std::map<int32_t, std::string>& node_lines, int* next_id,
                  std::ostream& out) {
  for (int32_t n : c.nodes) out << indent << node_lines.at(n) << "\n";
  for (const auto& [name, child] : c.children) {
    const std::string full = path.empty() ? name : path + "." + name;
    out << indent << "subgraph cluster_" << (*next_id)++ << " {\n"
        << indent << "  label=" << dot_quote(full)
        << "; style=rounded; color=gray60; fontsize=10;\n";
    emit_cluster(child, full, indent + "  ", node_lines, next_id, out);
    out << indent << "}\n";
  }
}

constexpr const char* kGroupColors[] = {"#f4a582", "#92c5de", "#b8e186", "#fdb863",
                                        "#c2a5cf", "#f1b6da", "#80cdc1", "#dfc27d"};

}  // namespace

std::vector<int32_t> graph_dot_group_nodes(const ir::ModelView& model, const std::string& method,
                                           int32_t producer, int32_t output) {
  const ir::fb::Method* m = find_method(model, method);
  if (!m || !m->nodes() || producer < 0 || producer >= int32_t(m->nodes()->size())) return {};
  const auto prod = producers(*m);
  const auto last = prod.find(output);
  if (last == prod.end() || last->second == producer) return {};
  // Forward from the producer: nodes that read (transitively) what it writes ...
  std::set<int32_t> after, written;
  if (const auto* outs = m->nodes()->Get(producer)->outputs())
    written.insert(outs->begin(), outs->end());
  for (int32_t i = producer + 1; i <= last->second; ++i) {
    const ir::fb::Node& n = *m->nodes()->Get(i);
    bool reads = false;
    for (int32_t v : node_inputs(n)) reads |= written.count(v) > 0;
    if (!reads) continue;
    after.insert(i);
    if (n.outputs()) written.insert(n.outputs()->begin(), n.outputs()->end());
  }
  // ... and backward from the last one: those it depends on.
  std::set<int32_t> needed = {last->second};
  for (int32_t i = last->second; i > producer; --i) {
    if (!needed.count(i)) continue;
    for (int32_t v : node_inputs(*m->nodes()->Get(i))) {
      const auto p = prod.find(v);
      if (p != prod.end()) needed.insert(p->second);
    }
  }
  std::vector<int32_t> group;
  for (int32_t i : after)
    if (needed.count(i)) group.push_back(i);
  return group;
}

Status graph_dot_write(const ir::ModelView& model, const std::string& model_path,
                       const DotOptions& o, std::ostream& out) {
  const ir::fb::Method* m = find_method(model, o.method);
  if (!m) {
    std::string names;
    for (const ir::fb::Method* x : *model.model().methods())
      names += (names.empty() ? "" : ", ") + std::string(ir::str(x->name()));
    return make_error(StatusCode::kNotFound, "'", model_path, "' has no method '", o.method,
                      "' (it has: ", names, ")");
  }
  const size_t num_nodes = m->nodes() ? m->nodes()->size() : 0;
  std::map<int32_t, std::pair<size_t, bool>> group_of;  // node -> (group, is producer)
  for (size_t g = 0; g < o.fused.size(); ++g) {
    group_of[o.fused[g].producer] = {g, true};
    for (int32_t n : o.fused[g].absorbed) group_of[n] = {g, false};
  }
  std::map<int32_t, std::string> lines;
  Cluster root;
  for (size_t i = 0; i < num_nodes; ++i) {
    const ir::fb::Node& n = *m->nodes()->Get(i);
    std::string label = std::string(ir::str(n.op())) + "\n" + std::string(ir::str(n.name()));
    std::string style;
    const auto g = group_of.find(int32_t(i));
    if (g != group_of.end()) {
      const DotGroup& group = o.fused[g->second.first];
      if (g->second.second) label += "\nfused: " + group.label;
      style = std::string(", style=filled, fillcolor=\"") +
              kGroupColors[g->second.first % std::size(kGroupColors)] + "\"" +
              (g->second.second ? ", penwidth=2" : "");
    }
    std::string tooltip = std::string(ir::str(n.module_type()));
    if (n.source()) tooltip += (tooltip.empty() ? "" : "\n") + std::string(ir::str(n.source()));
    lines[int32_t(i)] = "n" + std::to_string(i) + " [label=" + dot_quote(label) +
                        (tooltip.empty() ? "" : ", tooltip=" + dot_quote(tooltip)) + style + "];";
    Cluster* c = &root;
    const std::string_view path = ir::str(n.module_path());
    for (size_t at = 0; at < path.size();) {
      size_t dot = path.find('.', at);
      if (dot == std::string_view::npos) dot = path.size();
      c = &c->children[std::string(path.substr(at, dot - at))];
      at = dot + 1;
    }
    c->nodes.push_back(int32_t(i));
  }
  size_t weights = 0, constants = 0;
  for (const ir::fb::Value* v : *m->values()) {
    weights += v->source() == ir::fb::ValueSource::Weight;
    constants += v->source() == ir::fb::ValueSource::Constant;
  }
  std::string title = model_path + " : " + o.method + "\n" + std::to_string(num_nodes) +
                      " nodes, " + std::to_string(weights) + " weights and " +
                      std::to_string(constants) + " constants (not drawn), " +
                      std::to_string(o.fused.size()) + " fused groups";
  if (!o.note.empty()) title += "\n" + o.note;
  out << "digraph " << dot_quote(o.method) << " {\n"
      << "  label=" << dot_quote(title) << "; labelloc=t; fontsize=12;\n"
      << "  node [shape=box, fontsize=10, fontname=\"Helvetica\"];\n"
      << "  edge [color=gray30];\n";
  const auto prod = producers(*m);
  if (m->inputs())
    for (int32_t v : *m->inputs())
      out << "  v" << v << " [shape=ellipse, label=" << dot_quote(value_text(*m->values()->Get(v)))
          << "];\n";
  int next_id = 0;
  emit_cluster(root, "", "  ", lines, &next_id, out);
  for (size_t i = 0; i < num_nodes; ++i) {
    std::set<std::string> from;
    for (int32_t v : node_inputs(*m->nodes()->Get(i))) {
      const auto p = prod.find(v);
      if (p != prod.end())
        from.insert("n" + std::to_string(p->second));
      else if (m->values()->Get(v)->source() == ir::fb::ValueSource::UserInput)
        from.insert("v" + std::to_string(v));
    }
    for (const std::string& f : from) out << "  " << f << " -> n" << i << ";\n";
  }
  if (m->outputs())
    for (uint32_t k = 0; k < m->outputs()->size(); ++k) {
      const int32_t v = m->outputs()->Get(k);
      out << "  out" << k << " [shape=ellipse, label="
          << dot_quote("output_" + std::to_string(k) + "\n" + value_text(*m->values()->Get(v)))
          << "];\n";
      const auto p = prod.find(v);
      if (p != prod.end())
        out << "  n" << p->second << " -> out" << k << ";\n";
      else if (m->values()->Get(v)->source() == ir::fb::ValueSource::UserInput)
        out << "  v" << v << " -> out" << k << ";\n";
    }
  out << "}\n";
  return ok_status();
}

Status graph_dot_save(const ir::ModelView& model, const std::string& model_path,
                      const DotOptions& options, const std::string& dot_path,
                      const std::string& svg_path) {
  std::ostringstream text;
  TIR_RETURN_IF_ERROR(graph_dot_write(model, model_path, options, text));
  const std::string s = text.str();
  TIR_RETURN_IF_ERROR(
      write_file_atomic(dot_path, {reinterpret_cast<const uint8_t*>(s.data()), s.size()}));
  if (svg_path.empty()) return ok_status();
  const std::string tmp = svg_path + ".tmp";
  const char* argv[] = {"dot", "-Tsvg", dot_path.c_str(), "-o", tmp.c_str(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "dot", nullptr, nullptr, const_cast<char**>(argv), environ);
  if (rc == ENOENT)
    return make_error(StatusCode::kUnsupported, "--svg '", svg_path,
                      "': Graphviz `dot` is not on PATH (install graphviz, e.g. apt-get install "
                      "graphviz, or render '",
                      dot_path, "' elsewhere)");
  if (rc != 0)
    return make_error(StatusCode::kIo, "--svg '", svg_path,
                      "': cannot run Graphviz `dot`: ", std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::error_code ec;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::filesystem::remove(tmp, ec);
    return make_error(StatusCode::kInternal, "--svg '", svg_path, "': Graphviz `dot` failed on '",
                      dot_path, "'");
  }
  std::filesystem::rename(tmp, svg_path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return make_error(StatusCode::kIo, "--svg '", svg_path, "': ", ec.message());
  }
  return ok_status();
}

}  // namespace tir::tools
