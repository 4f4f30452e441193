// Shared validation and shape inference of tir::quantized_linear, the int8 GEMM that
// runtime/passes/quant_rewrite.h makes of a PT2E-quantized program's
//   linear(dequantize_per_tensor(q_x, s_x, zp_x), dequantize_per_channel(q_w, s_w, zp_w, 0), b)
// (torch's core IR: addmm(b, view(dq(q_x)), permute(dq(q_w)))). Arguments, in order:
//   input        uint8 or int8 [..., K], quantized per tensor (the quantize op's output)
//   scale, zero_point          of input (float, int)
//   weight       int8 [N, K], quantized per output channel
//   scales       float64 or float32 [N];  zero_points  int64 [N] or None
//   bias         float32 [N] or None
//   flatten      1: output [numel(input) / K, N] (addmm form), 0: [..., N] (linear form)
// The reference (kernels/reference/quantization/quantized_linear.h) computes torch's arithmetic on
// the dequantized operands; the oneDNN kernel (cpu/int8/quantized_linear_onednn.cc) the int8 GEMM.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct QuantizedLinearParams {
  double x_scale = 1;
  int64_t x_zero_point = 0;
  int64_t m = 0, n = 0, k = 0;
  int input = -1, weight = -1, scales = -1, zero_points = -1, bias = -1;  // into call.inputs
  bool signed_input = false;                                              // int8 input (else uint8)
};

/// Validates the call and sets outputs[0] (float32).
Result<QuantizedLinearParams> quantized_linear_prepare(const KernelCall& call);

}  // namespace tir::kernels
