#include "kernels/epilogue.h"

#include <cmath>

#include "kernels/ops/unary.h"

namespace tir::kernels {

std::string_view activation_name(Activation act) {
  switch (act) {
    case Activation::kNone:
      return "";
    case Activation::kRelu:
      return "relu";
    case Activation::kGeluErf:
      return "gelu";
    case Activation::kGeluTanh:
      return "gelu_tanh";
    case Activation::kHardswish:
      return "hardswish";
    case Activation::kHardsigmoid:
      return "hardsigmoid";
    case Activation::kSilu:
      return "silu";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kTanh:
      return "tanh";
  }
  return "";
}

namespace {

double activate(Activation act, double x) {
  switch (act) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return ops::relu(x);
    case Activation::kGeluErf:
      return ops::gelu_erf(x);
    case Activation::kGeluTanh:
      return ops::gelu_tanh(x);
    case Activation::kHardswish:
      return ops::hardswish(x);
    case Activation::kHardsigmoid:
      return ops::hardsigmoid(x);
    case Activation::kSilu:
      return ops::silu(x);
    case Activation::kSigmoid:
      return ops::sigmoid(x);
    case Activation::kTanh:
      return std::tanh(x);
  }
  return x;
}

}  // namespace

void apply_activation(Activation act, float* data, int64_t n) {
  if (act == Activation::kNone) return;
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(activate(act, data[i]));
}

}  // namespace tir::kernels
