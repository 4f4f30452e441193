// The load-time pass that gives a PT2E-quantized program (torch's quantized_decomposed ops,
// tests/data/gen_quant.py) tir's int8 GEMM: in
//   training IR  linear(dequantize_per_tensor(q_x), dequantize_per_channel(q_w), bias)
//   core IR      addmm(bias, view?(dequantize_per_tensor(q_x)),
//                      permute(dequantize_per_channel(q_w), [1, 0]))       beta = alpha = 1
// where q_w is an int8 weight of the program quantized along its output channels (axis 0),
// q_x is uint8 or int8 quantized per tensor with scalar scale and zero point, and the view
// (if any) keeps the last dim, the GEMM node becomes one tir::quantized_linear node
// (kernels/cpu/int8/quantized_linear_onednn.cc) that reads q_x and q_w themselves. Dequantize,
// view and permute nodes left without readers are marked dead, so neither the float32 copy
// of the weight nor of the activation is ever made. Anything else is left as it is (the
// reference kernels of the quantize ops then run torch's arithmetic exactly).
//
// Runs before placement, with the other graph optimisations (SessionOptions::fuse).
#pragma once

#include <cstddef>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Rewrites every GEMM of the patterns above; returns how many. `def_use` (of `g`) is kept
/// up to date: the rewritten nodes read their new inputs, the nodes marked dead are gone.
size_t rewrite_quantized_linears(ExecGraph& g, DefUse& def_use);

}  // namespace tir
