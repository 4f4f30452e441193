#include "importer/weight_order.h"

namespace tir::importer {

void weight_first_use_order_add(const fb::Method& method, std::vector<size_t>& order,
                                std::vector<bool>& seen) {
  const auto* values = method.values();
  auto use = [&](int32_t v) {
    if (!values || v < 0 || size_t(v) >= values->size()) return;
    const fb::Value& val = *values->Get(v);
    if (val.source() != fb::ValueSource::Weight || val.index() < 0) return;
    const size_t w = size_t(val.index());
    if (w < seen.size() && !seen[w]) {
      seen[w] = true;
      order.push_back(w);
    }
  };
  if (method.nodes())
    for (const fb::Node* node : *method.nodes()) {
      if (!node->args()) continue;
      for (const fb::Argument* a : *node->args()) {
        if (const fb::TensorArg* t = a->value_as_TensorArg()) use(t->value());
        if (const fb::TensorsArg* ts = a->value_as_TensorsArg())
          if (ts->values())
            for (int32_t v : *ts->values()) use(v);
      }
    }
  if (method.subgraphs())
    for (const fb::Method* sub : *method.subgraphs()) weight_first_use_order_add(*sub, order, seen);
}

std::vector<size_t> weight_first_use_order(flatbuffers::FlatBufferBuilder& fbb,
                                           std::span<const flatbuffers::Offset<fb::Method>> methods,
                                           size_t num_weights) {
  std::vector<size_t> order;
  std::vector<bool> seen(num_weights, false);
  for (const auto& m : methods)
    weight_first_use_order_add(*flatbuffers::GetTemporaryPointer(fbb, m), order, seen);
  for (size_t w = 0; w < num_weights; ++w)
    if (!seen[w]) order.push_back(w);
  return order;
}

}  // namespace tir::importer
