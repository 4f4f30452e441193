// Run function of the reference tir::quantized_linear (quantized_linear.cc), also the
// oneDNN kernel's path where oneDNN does not apply (weight zero points, streamed weights).
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/quantization/quantized_linear.h"

namespace tir::kernels {

/// Torch's arithmetic: y[m, n] = sum_k x[m, k] * w[n, k] + bias[n] in float32, where
/// x = (float(q_x) - zp_x) * float(s_x) and w = float(double(q_w - zp_w[n]) * s_w[n]), the
/// values dequantize_per_tensor and dequantize_per_channel produce. `row` has p.k floats.
void ref_quantized_linear(const QuantizedLinearParams& p, const KernelCall& call, float* row);

}  // namespace tir::kernels
