#include "tools/int8_plan.h"

#include <string_view>

#include "ir/model.h"
#include "runtime/data_loader.h"

namespace tir::tools {
namespace {

/// The argument holding the weight to quantize, its channel axis and rank; arg -1: none.
struct GemmB {
  int arg = -1, axis = 0, rank = 2;
};

GemmB gemm_b(std::string_view op) {
  if (op == "aten::linear") return {1, 0};
  if (op == "aten::addmm") return {2, 1};
  if (op == "aten::mm") return {1, 1};
  if (op == "aten::embedding") return {0, 0};  // a table [V, D]: one scale per row
  // [OC, C/groups, KH, KW]: one scale per output channel (kernels/cpu/conv_int8_onednn.h)
  if (op == "aten::conv2d" || op == "aten::convolution") return {1, 0, 4};
  if (op == "aten::conv1d") return {1, 0, 3};
  return {};
}

void collect(const ir::fb::Model& model, const ir::fb::Method& method,
             std::map<std::string, int>& axes) {
  if (method.nodes())
    for (const ir::fb::Node* node : *method.nodes()) {
      const GemmB b = gemm_b(ir::str(node->op()));
      if (b.arg < 0 || !node->args() || size_t(b.arg) >= node->args()->size()) continue;
      const ir::fb::Argument* a = node->args()->Get(flatbuffers::uoffset_t(b.arg));
      if (a->value_type() != ir::fb::ArgValue::TensorArg) continue;
      const int32_t v = a->value_as_TensorArg()->value();
      if (!method.values() || v < 0 || size_t(v) >= method.values()->size()) continue;
      const ir::fb::Value* value = method.values()->Get(flatbuffers::uoffset_t(v));
      if (value->source() != ir::fb::ValueSource::Weight || !model.weights() ||
          value->index() < 0 || size_t(value->index()) >= model.weights()->size())
        continue;
      const ir::fb::WeightRef* w = model.weights()->Get(flatbuffers::uoffset_t(value->index()));
      if (w->dtype() != ir::fb::DType::Float32 || !w->shape() ||
          w->shape()->size() != size_t(b.rank))
        continue;
      axes.emplace(std::string(ir::str(w->name())), b.axis);
      if (w->aliases())
        for (const flatbuffers::String* alias : *w->aliases()) axes.emplace(alias->str(), b.axis);
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

}  // namespace tir::tools
