#include "runtime/weights/weight_source.h"

namespace tir {

Result<int32_t> weight_slot(const WeightSet& set, const ir::fb::WeightRef& w) {
  int32_t slot = set.slot(ir::str(w.name()));
  if (slot < 0 && w.aliases())
    for (const flatbuffers::String* a : *w.aliases())
      if (slot < 0) slot = set.slot(a->string_view());
  if (slot < 0)
    return make_error(StatusCode::kNotFound, "weight '", ir::str(w.name()), "' is missing from '",
                      set.path(), "'");
  return slot;
}

Result<std::shared_ptr<ResidentWeights>> ResidentWeights::bind(
    const ir::ModelView& model, std::shared_ptr<const WeightSet> set) {
  auto source = std::make_shared<ResidentWeights>();
  const ir::fb::Model& m = model.model();
  const size_t n = m.weights() ? m.weights()->size() : 0;
  source->keys_.resize(n);
  for (size_t id = 0; id < n; ++id) {
    TIR_ASSIGN_OR_RETURN(const int32_t slot, weight_slot(*set, *m.weights()->Get(id)));
    source->keys_[id] = {slot, set->generation(size_t(slot))};
  }
  source->set_ = std::move(set);
  return source;
}

}  // namespace tir
