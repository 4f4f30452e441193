// The oracle of the int4 GEMM kernels (kernels/cpu/int4/gemm_int4.h): A [m, k] float32 times
// the dequantized int4 weight [n, k] transposed (core/quantize_int4.h, w = q * s + m), summed
// in double. The CPU kernel also quantizes A (per 32 values, as llama.cpp's Q8_0); the op
// suite bounds its distance from this by that quantization error.
#pragma once

#include <cstdint>

#include "core/quantize_int4.h"

namespace tir::kernels {

/// out[i, j] = sum_k a[i, k] * w[j, k], w dequantized; in double, rounded once to float.
void ref_int4_linear(const Int4View& w, const float* a, int64_t m, float* out);

}  // namespace tir::kernels
