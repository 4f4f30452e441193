#include "runtime/weight_binding.h"

#include <algorithm>
#include <unordered_set>

namespace tir {

namespace fb = ir::fb;

namespace {

const Tensor* find_weight(const WeightSet& weights, const fb::WeightRef& w) {
  if (const Tensor* t = weights.find(ir::str(w.name()))) return t;
  if (w.aliases())
    for (const flatbuffers::String* a : *w.aliases())
      if (const Tensor* t = weights.find(a->string_view())) return t;
  return nullptr;
}

Status mismatch(const WeightSet& weights, auto&&... what) {
  return make_error(StatusCode::kInvalidArgument, "weight file '", weights.path(),
                    "' does not match the model: ", what...);
}

}  // namespace

Status check_weights(const ir::ModelView& model, const WeightSet& weights) {
  const fb::Model& m = model.model();
  if (!m.weights() || m.weights()->size() == 0) return ok_status();
  if (weights.signature() != 0 && weights.signature() == m.weight_signature()) return ok_status();
  std::unordered_set<std::string_view> known;
  for (const fb::WeightRef* w : *m.weights()) {
    known.insert(ir::str(w->name()));
    if (w->aliases())
      for (const flatbuffers::String* a : *w->aliases()) known.insert(a->string_view());
    const Tensor* t = find_weight(weights, *w);
    if (!t) return mismatch(weights, "it has no tensor '", ir::str(w->name()), "'");
    const std::span<const int64_t> want(w->shape() ? w->shape()->data() : nullptr,
                                        w->shape() ? w->shape()->size() : 0);
    if (t->dtype != ir::to_dtype(w->dtype()) ||
        !std::equal(want.begin(), want.end(), t->shape().begin(), t->shape().end()))
      return mismatch(weights, "tensor '", ir::str(w->name()), "' is ", dtype_name(t->dtype),
                      shape_str(t->shape()), ", the model expects ",
                      dtype_name(ir::to_dtype(w->dtype())), shape_str(want));
  }
  for (const std::string& name : weights.names())
    if (!known.contains(name))
      return mismatch(weights, "tensor '", name, "' is not a weight of the model");
  return ok_status();
}

}  // namespace tir
