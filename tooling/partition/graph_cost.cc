#include "tooling/partition/graph_cost.h"

#include <algorithm>
#include <array>

namespace tir::tools {
namespace {

using ir::fb::ValueSource;

constexpr std::array<std::string_view, 16> kViewOps = {
    "aten::view",    "aten::reshape", "aten::permute",   "aten::expand",
    "aten::slice",   "aten::t",       "aten::transpose", "aten::unsqueeze",
    "aten::squeeze", "aten::alias",   "aten::select",    "aten::_unsafe_view",
    "aten::detach",  "aten::flatten", "aten::sym_size",  "aten::lift_fresh_copy"};

bool is_view(std::string_view op) {
  const std::string_view base = op.substr(0, op.find('.'));
  return std::find(kViewOps.begin(), kViewOps.end(), base) != kViewOps.end();
}

int64_t numel(const ir::fb::Value& v) {
  int64_t n = 1;
  if (v.sizes())
    for (const ir::fb::Dim* d : *v.sizes()) n *= std::max<int64_t>(d->value(), 0);
  return n;
}

int64_t dim(const ir::fb::Value& v, int k) {
  if (!v.sizes() || v.sizes()->size() == 0) return 1;
  const int rank = int(v.sizes()->size());
  if (k < 0) k += rank;
  return k >= 0 && k < rank ? v.sizes()->Get(k)->value() : 1;
}

/// The tensor argument named `name`, or nullptr.
const ir::fb::Value* tensor_arg(const ir::fb::Method& m, const ir::fb::Node& n,
                                std::string_view name) {
  if (!n.args()) return nullptr;
  for (const ir::fb::Argument* a : *n.args())
    if (ir::str(a->name()) == name && a->value_type() == ir::fb::ArgValue::TensorArg)
      return m.values()->Get(a->value_as_TensorArg()->value());
  return nullptr;
}

/// Multiply-adds of the GEMM and convolution families (x2 = flops); others count one
/// operation per output element.
double node_flops(const ir::fb::Method& m, const ir::fb::Node& n, int64_t out_numel) {
  const std::string_view op = ir::str(n.op());
  const std::string_view base = op.substr(0, op.find('.'));
  const auto first = [&](std::initializer_list<std::string_view> names) {
    for (std::string_view name : names)
      if (const ir::fb::Value* v = tensor_arg(m, n, name)) return v;
    return static_cast<const ir::fb::Value*>(nullptr);
  };
  if (base == "aten::linear" || base == "aten::addmm" || base == "aten::mm" ||
      base == "aten::matmul" || base == "aten::bmm" || base == "aten::baddbmm") {
    const ir::fb::Value* a = first({"mat1", "batch1", "input", "self"});
    return a ? 2.0 * double(out_numel) * double(dim(*a, -1)) : double(out_numel);
  }
  if (base.find("conv") != std::string_view::npos) {
    const ir::fb::Value* w = first({"weight"});
    if (w && dim(*w, 0) > 0) return 2.0 * double(out_numel) * double(numel(*w) / dim(*w, 0));
  }
  if (base.find("scaled_dot_product") != std::string_view::npos) {
    const ir::fb::Value* q = first({"query"});
    const ir::fb::Value* k = first({"key"});
    if (q && k) return 4.0 * double(numel(*q)) * double(dim(*k, -2));
  }
  return double(out_numel);
}

/// Model.weights indices bound by subgraph `index` of `m` and the subgraphs it calls.
void collect_subgraph_weights(const ir::fb::Method& m, int32_t index, std::vector<int32_t>* out) {
  if (!m.subgraphs() || index < 0 || index >= int32_t(m.subgraphs()->size())) return;
  const ir::fb::Method& sub = *m.subgraphs()->Get(index);
  if (sub.values())
    for (const ir::fb::Value* v : *sub.values())
      if (v->source() == ValueSource::Weight) out->push_back(v->index());
  if (sub.nodes())
    for (const ir::fb::Node* n : *sub.nodes())
      if (n->args())
        for (const ir::fb::Argument* a : *n->args())
          if (const auto* g = a->value_as_GraphArg())
            collect_subgraph_weights(sub, g->index(), out);
}

}  // namespace

uint64_t value_nbytes(const ir::fb::Value& v) {
  if (v.kind() != ir::fb::ValueKind::Tensor) return 0;
  return uint64_t(numel(v)) * dtype_size(ir::to_dtype(v.dtype()));
}

std::string module_prefix(std::string_view path, int depth) {
  if (depth <= 0) return std::string(path);
  int parts = 1;
  for (size_t i = 0; i < path.size(); ++i)
    if (path[i] == '.' && ++parts > depth) return std::string(path.substr(0, i));
  return std::string(path);
}

Result<GraphCost> graph_cost(const ir::ModelView& model, const ir::fb::Method& m) {
  GraphCost g;
  g.method = &m;
  const size_t nv = m.values() ? m.values()->size() : 0;
  g.num_nodes = m.nodes() ? m.nodes()->size() : 0;
  g.value_bytes.assign(nv, 0);
  g.producer.assign(nv, -1);
  g.last_use.assign(nv, -1);
  g.reads.resize(g.num_nodes);
  g.weights.resize(g.num_nodes);
  g.estimate.resize(g.num_nodes);
  const auto* wrefs = model.model().weights();
  g.weight_bytes.assign(wrefs ? wrefs->size() : 0, 0);
  for (size_t w = 0; w < g.weight_bytes.size(); ++w) g.weight_bytes[w] = wrefs->Get(w)->byte_size();
  for (size_t v = 0; v < nv; ++v) g.value_bytes[v] = value_nbytes(*m.values()->Get(v));
  for (size_t i = 0; i < g.num_nodes; ++i) {
    const ir::fb::Node& n = *m.nodes()->Get(i);
    std::vector<int32_t>& reads = g.reads[i];
    ir::for_each_tensor_arg(n, [&](int32_t v, size_t) { reads.push_back(v); });
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    int64_t out_numel = 0;
    double out_bytes = 0;
    if (n.outputs())
      for (int32_t v : *n.outputs()) {
        if (v < 0 || size_t(v) >= nv)
          return make_error(StatusCode::kCorrupt, "method '", ir::str(m.name()), "' node '",
                            ir::str(n.name()), "' writes value ", v, " out of range");
        g.producer[v] = int32_t(i);
        out_numel += numel(*m.values()->Get(v));
        out_bytes += double(g.value_bytes[v]);
      }
    double in_bytes = 0;
    for (int32_t v : reads) {
      g.last_use[v] = int32_t(i);
      const ir::fb::Value& value = *m.values()->Get(v);
      if (value.source() == ValueSource::Weight)
        g.weights[i].push_back(value.index());
      else
        in_bytes += double(g.value_bytes[v]);
    }
    if (n.args())
      for (const ir::fb::Argument* a : *n.args())
        if (const auto* ga = a->value_as_GraphArg())
          collect_subgraph_weights(m, ga->index(), &g.weights[i]);
    std::sort(g.weights[i].begin(), g.weights[i].end());
    g.weights[i].erase(std::unique(g.weights[i].begin(), g.weights[i].end()), g.weights[i].end());
    NodeEstimate& e = g.estimate[i];
    if (!is_view(ir::str(n.op()))) {
      e.flops = node_flops(m, n, out_numel);
      e.bytes = in_bytes + out_bytes;
      for (int32_t w : g.weights[i])
        if (size_t(w) < g.weight_bytes.size()) e.bytes += double(g.weight_bytes[w]);
    }
    e.seconds = e.flops / kEstimateFlops + e.bytes / kEstimateBytesPerSecond;
  }
  if (m.outputs())
    for (int32_t v : *m.outputs())
      if (v >= 0 && size_t(v) < nv) g.last_use[v] = int32_t(g.num_nodes);
  return g;
}

}  // namespace tir::tools
