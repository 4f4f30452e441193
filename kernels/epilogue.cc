#include "kernels/epilogue.h"

#include <cmath>

#include "kernels/ops/unary.h"

namespace tir::kernels {

using ops::UnaryKind;

std::string_view activation_name(UnaryKind act) {
  switch (act) {
    case UnaryKind::kRelu:
      return "relu";
    case UnaryKind::kGeluErf:
      return "gelu";
    case UnaryKind::kGeluTanh:
      return "gelu_tanh";
    case UnaryKind::kHardswish:
      return "hardswish";
    case UnaryKind::kHardsigmoid:
      return "hardsigmoid";
    case UnaryKind::kSilu:
      return "silu";
    case UnaryKind::kSigmoid:
      return "sigmoid";
    case UnaryKind::kTanh:
      return "tanh";
    default:  // not fusable_as_epilogue
      return "";
  }
}

namespace {

double activate(UnaryKind act, double x) {
  switch (act) {
    case UnaryKind::kRelu:
      return ops::relu(x);
    case UnaryKind::kGeluErf:
      return ops::gelu_erf(x);
    case UnaryKind::kGeluTanh:
      return ops::gelu_tanh(x);
    case UnaryKind::kHardswish:
      return ops::hardswish(x);
    case UnaryKind::kHardsigmoid:
      return ops::hardsigmoid(x);
    case UnaryKind::kSilu:
      return ops::silu(x);
    case UnaryKind::kSigmoid:
      return ops::sigmoid(x);
    case UnaryKind::kTanh:
      return std::tanh(x);
    default:  // not fusable_as_epilogue: the fusion pass never sets one
      return x;
  }
}

}  // namespace

void apply_activation(std::optional<UnaryKind> act, float* data, int64_t n) {
  if (!act) return;
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(activate(*act, data[i]));
}

}  // namespace tir::kernels
