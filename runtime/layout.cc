#include "runtime/layout.h"

namespace tir {

namespace fb = ir::fb;

std::vector<bool> choose_channels_last(const fb::Method& method,
                                       std::span<const LayoutNode> nodes) {
  const size_t nvalues = method.values() ? method.values()->size() : 0;
  std::vector<bool> chosen(nvalues, false);
  for (const LayoutNode& n : nodes) {
    if (!n.runs || !n.channels_last || n.output < 0 || size_t(n.output) >= nvalues) continue;
    const fb::Value* val = method.values()->Get(n.output);
    if (val->kind() == fb::ValueKind::Tensor && val->dtype() == fb::DType::Float32 &&
        val->source() == fb::ValueSource::Activation && val->sizes() && val->sizes()->size() == 4)
      chosen[n.output] = true;
  }
  std::vector<bool> read(nvalues, false);
  const auto reject = [&](int32_t v) {
    if (v >= 0 && size_t(v) < nvalues) chosen[v] = false;
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    const LayoutNode& n = nodes[i];
    if (!n.runs || n.node == nullptr) continue;
    ir::for_each_tensor_arg(*n.node, [&](int32_t v, size_t k) {
      if (v < 0 || size_t(v) >= nvalues) return;
      read[v] = true;
      if (!n.channels_last || k != 0) reject(v);
    });
    if (n.residual >= 0 && size_t(n.residual) < nvalues) {
      read[n.residual] = true;
      if (!n.channels_last) reject(n.residual);
    }
  }
  if (method.outputs())
    for (int32_t v : *method.outputs()) reject(v);
  if (method.mutations())
    for (const fb::BufferMutation* mu : *method.mutations()) reject(mu->value());
  for (size_t v = 0; v < nvalues; ++v)
    if (!read[v]) chosen[v] = false;
  return chosen;
}

}  // namespace tir
