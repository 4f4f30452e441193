#include "tooling/weights/int8_plan.h"

#include <string_view>

#include "ir/model.h"
#include "runtime/weights/data_loader.h"

namespace tir::tools {
namespace {

/// The argument holding the weight to quantize, its channel axis and rank; arg -1: none. `a`:
/// the argument holding the activation (every argument before it is a tensor, so it is also
/// its index among the node's tensor inputs); -1 where calibration does not apply (an
/// embedding, a convolution: only 2-D GEMMs are smoothed).
struct GemmB {
  int arg = -1, axis = 0, a = -1, rank = 2;
};

GemmB gemm_b(std::string_view op) {
  if (op == "aten::linear") return {1, 0, 0};
  if (op == "aten::addmm") return {2, 1, 1};
  if (op == "aten::mm") return {1, 1, 0};
  if (op == "aten::embedding") return {0, 0, -1};  // a table [V, D]: one scale per row
  // [OC, C/groups, KH, KW]: one scale per output channel (kernels/cpu/int8/conv_int8_onednn.h)
  if (op == "aten::conv2d" || op == "aten::convolution") return {1, 0, -1, 4};
  if (op == "aten::conv1d") return {1, 0, -1, 3};
  return {};
}

/// The value tensor argument `arg` of `node` holds; -1 if it is not one.
int32_t tensor_arg(const ir::fb::Node& node, int arg) {
  if (arg < 0 || !node.args() || size_t(arg) >= node.args()->size()) return -1;
  const ir::fb::Argument* a = node.args()->Get(flatbuffers::uoffset_t(arg));
  return a->value_type() == ir::fb::ArgValue::TensorArg ? a->value_as_TensorArg()->value() : -1;
}

/// W where value `v` is permute(W, [1, 0]) (the core IR's transposed linear weight); else -1.
int32_t transposed_source(const ir::fb::Method& method, int32_t v) {
  if (v < 0 || !method.nodes()) return -1;
  for (const ir::fb::Node* n : *method.nodes()) {
    if (!n->outputs() || n->outputs()->size() != 1 || n->outputs()->Get(0) != v) continue;
    if (ir::str(n->op()) != "aten::permute" || !n->args() || n->args()->size() < 2) return -1;
    const ir::fb::Argument* dims = n->args()->Get(1);
    if (dims->value_type() != ir::fb::ArgValue::IntsArg) return -1;
    const auto* d = dims->value_as_IntsArg()->values();
    return d && d->size() == 2 && d->Get(0) == 1 && d->Get(1) == 0 ? tensor_arg(*n, 0) : -1;
  }
  return -1;
}

/// The float32 weight of rank `b.rank` `node` reads as its B operand (`b`), or null. An mm or
/// addmm whose B is permute(W, [1, 0]) of a weight W [N, K] runs as linear(x, W)
/// (runtime/passes/linear_rewrite.h): then W, quantized along its axis 0 as linear's (`b`
/// becomes linear's).
const ir::fb::WeightRef* b_weight(const ir::fb::Model& model, const ir::fb::Method& method,
                                  const ir::fb::Node& node, GemmB& b) {
  int32_t v = tensor_arg(node, b.arg);
  if (b.axis == 1 && b.rank == 2) {  // mm / addmm
    const int32_t w = transposed_source(method, v);
    if (w >= 0) {
      v = w;
      b.axis = 0;
    }
  }
  if (!method.values() || v < 0 || size_t(v) >= method.values()->size()) return nullptr;
  const ir::fb::Value* value = method.values()->Get(flatbuffers::uoffset_t(v));
  if (value->source() != ir::fb::ValueSource::Weight || !model.weights() || value->index() < 0 ||
      size_t(value->index()) >= model.weights()->size())
    return nullptr;
  const ir::fb::WeightRef* w = model.weights()->Get(flatbuffers::uoffset_t(value->index()));
  if (w->dtype() != ir::fb::DType::Float32 || !w->shape() || w->shape()->size() != size_t(b.rank))
    return nullptr;
  return w;
}

std::vector<std::string> names_of(const ir::fb::WeightRef& w) {
  std::vector<std::string> names{std::string(ir::str(w.name()))};
  if (w.aliases())
    for (const flatbuffers::String* alias : *w.aliases()) names.push_back(alias->str());
  return names;
}

void collect(const ir::fb::Model& model, const ir::fb::Method& method,
             std::map<std::string, int>& axes) {
  if (method.nodes())
    for (const ir::fb::Node* node : *method.nodes()) {
      GemmB b = gemm_b(ir::str(node->op()));
      const ir::fb::WeightRef* w = b_weight(model, method, *node, b);
      if (!w) continue;
      for (const std::string& name : names_of(*w)) axes.emplace(name, b.axis);
    }
  if (method.subgraphs())
    for (const ir::fb::Method* sub : *method.subgraphs()) collect(model, *sub, axes);
}

}  // namespace

Result<std::map<std::string, int>> int8_weight_axes(const std::string& model_path) {
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(source->bytes(), source->name()));
  std::map<std::string, int> axes;
  if (view.model().methods())
    for (const ir::fb::Method* m : *view.model().methods()) collect(view.model(), *m, axes);
  return axes;
}

Result<std::vector<std::string>> int4_kept_int8_weights(const std::string& model_path) {
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(source->bytes(), source->name()));
  std::vector<std::string> names;
  if (view.model().methods())
    for (const ir::fb::Method* m : *view.model().methods()) {
      const ir::fb::WeightRef* last = nullptr;
      if (m->nodes())
        for (const ir::fb::Node* node : *m->nodes()) {
          const std::string_view op = ir::str(node->op());
          GemmB b = gemm_b(op);
          const ir::fb::WeightRef* w = b_weight(view.model(), *m, *node, b);
          if (w && op == "aten::embedding")
            for (std::string& name : names_of(*w)) names.push_back(std::move(name));
          else if (w && b.a >= 0)  // a 2-D GEMM
            last = w;
        }
      if (last)
        for (std::string& name : names_of(*last)) names.push_back(std::move(name));
    }
  return names;
}

Result<std::vector<Int8GemmUse>> int8_gemm_uses(const std::string& model_path,
                                                const std::string& method) {
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(source->bytes(), source->name()));
  const ir::fb::Model& model = view.model();
  std::vector<Int8GemmUse> uses;
  if (model.methods())
    for (const ir::fb::Method* m : *model.methods()) {
      if (ir::str(m->name()) != method || !m->nodes()) continue;
      for (flatbuffers::uoffset_t i = 0; i < m->nodes()->size(); ++i) {
        const ir::fb::Node& node = *m->nodes()->Get(i);
        GemmB b = gemm_b(ir::str(node.op()));
        const ir::fb::WeightRef* w = b.a >= 0 ? b_weight(model, *m, node, b) : nullptr;
        if (!w) continue;
        // linear's [N, K] (and a transposed one's) has K on axis 1; addmm's / mm's [K, N] on
        // axis 0.
        uses.push_back({int32_t(i), b.a, names_of(*w), w->shape()->Get(b.axis == 0 ? 1 : 0)});
      }
    }
  return uses;
}

}  // namespace tir::tools
