#include "runtime/weights/weight_binding.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <unordered_set>

namespace tir {

namespace {

std::atomic<uint64_t> check_count{0};

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

/// A file that stores a tied weight under several names (torch's safetensors files do) must
/// hold the same tensor under each: the model reads one of them, so a copy that differs in
/// dtype, shape or bytes would be ignored silently. A name left out is fine (the tie covers
/// it).
Status check_tied_copies(const WeightSet& weights, const fb::WeightRef& w, const Tensor& bound) {
  std::vector<std::string_view> names = {ir::str(w.name())};
  if (w.aliases())
    for (const flatbuffers::String* a : *w.aliases()) names.push_back(a->string_view());
  std::string_view bound_name;
  int32_t bound_slot = -1;
  for (std::string_view name : names) {
    const int32_t slot = weights.slot(name);
    if (slot < 0 || slot == bound_slot) continue;  // absent, or one entry under both names
    const Tensor* t = weights.find(name);
    if (bound_name.empty()) {
      bound_name = name;  // find_weight's choice: the first name the file has
      bound_slot = slot;
      continue;
    }
    const bool same = t->dtype == bound.dtype && std::ranges::equal(t->shape(), bound.shape()) &&
                      (t->data == bound.data || t->data == nullptr || bound.data == nullptr ||
                       std::memcmp(t->data, bound.data, bound.nbytes()) == 0);
    if (!same)
      return mismatch(weights, "tensor '", name, "' is ", dtype_name(t->dtype),
                      shape_str(t->shape()), " and differs from '", bound_name,
                      "': the model ties them into one weight");
  }
  return ok_status();
}

}  // namespace

uint64_t check_weights_count() { return check_count.load(std::memory_order_relaxed); }

Status check_weights(const ir::ModelView& model, const WeightSet& weights) {
  check_count.fetch_add(1, std::memory_order_relaxed);
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
    if (Status s = check_tied_copies(weights, *w, *t); !s.ok()) return s;
  }
  for (const std::string& name : weights.names())
    if (!known.contains(name))
      return mismatch(weights, "tensor '", name, "' is not a weight of the model");
  return ok_status();
}

}  // namespace tir
