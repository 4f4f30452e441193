#include "kernels/epilogue.h"

#include <algorithm>
#include <cmath>

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
      return x > 0 || std::isnan(x) ? x : 0.0;  // NaN stays NaN, as in torch
    case Activation::kGeluErf:
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::kGeluTanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case Activation::kHardswish:
      return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0;
    case Activation::kHardsigmoid:
      return std::clamp(x + 3.0, 0.0, 6.0) / 6.0;
    case Activation::kSilu:
      return x / (1.0 + std::exp(-x));
    case Activation::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
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
