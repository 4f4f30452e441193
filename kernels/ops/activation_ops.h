// The ATen op of each activation a GEMM or convolution fuses as its epilogue
// (kernels/epilogue.h): what the fusion pass matches (runtime/passes/fusion.cc, in-place forms
// too) and what runs one on its own when the GEMM must run without it
// (runtime/exec/lora_step.h). gelu appears twice, told apart by its `approximate` argument.
#pragma once

#include <string_view>

#include "kernels/ops/unary.h"

namespace tir::kernels::ops {

struct ActivationOp {
  UnaryKind kind;
  std::string_view op;           // the functional form; the in-place one adds "_"
  std::string_view approximate;  // gelu's argument; empty for the others
};

inline constexpr ActivationOp kActivationOps[] = {
    {UnaryKind::kRelu, "aten::relu", ""},
    {UnaryKind::kGeluErf, "aten::gelu", "none"},
    {UnaryKind::kGeluTanh, "aten::gelu", "tanh"},
    {UnaryKind::kSilu, "aten::silu", ""},
    {UnaryKind::kSigmoid, "aten::sigmoid", ""},
    {UnaryKind::kTanh, "aten::tanh", ""},
    {UnaryKind::kHardswish, "aten::hardswish", ""},
    {UnaryKind::kHardsigmoid, "aten::hardsigmoid", ""},
};

/// The op of activation `kind`; nullptr for a kind no epilogue fuses.
constexpr const ActivationOp* activation_op(UnaryKind kind) {
  for (const ActivationOp& a : kActivationOps)
    if (a.kind == kind) return &a;
  return nullptr;
}

/// The activation `op` (functional or in-place) computes given gelu's `approximate` (empty
/// means gelu's default, "none"); nullptr when `op` is none of them.
constexpr const ActivationOp* activation_of(std::string_view op, std::string_view approximate) {
  if (op.ends_with('_')) op.remove_suffix(1);
  if (approximate.empty()) approximate = "none";
  for (const ActivationOp& a : kActivationOps)
    if (a.op == op && (a.approximate.empty() || a.approximate == approximate)) return &a;
  return nullptr;
}

}  // namespace tir::kernels::ops
