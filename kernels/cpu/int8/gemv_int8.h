// The int8 GEMM's decode GEMV (kernels/cpu/int8/gemm_int8.h: one row of A, linear's [N, K]
// weight kept plain): out[j] = scales[j] * sum over k of a[k] * b[j, k], the sum exact in
// int32, for A quantized to uint8 and B int8. Variants (kernels/cpu/cpu_isa.h):
//   baseline     AVX2: 32 u8 x s8 products per `maddubs` when every a <= 127 (`a7`, the CPU's
//                pairs saturate int16 otherwise), else widened to int16 first (16 per madd);
//   avx512_vnni  vpdpbusd: 64 products per instruction into int32 lanes, never saturating,
//                four rows of B per pass sharing each load of A, masked loads for K's tail.
// Every variant gives the same integers, so the same floats.
#pragma once

#include <cstdint>

#include "kernels/cpu/cpu_isa.h"

namespace tir::kernels {

/// out[j] = float(a . b[j * k ...]) * scales[j] for j in [j0, j1), with variant `isa`
/// (at most cpu_isa()).
void int8_gemv(const uint8_t* a, const int8_t* b, int64_t k, int64_t j0, int64_t j1,
               const float* scales, bool a7, CpuIsa isa, float* out);

}  // namespace tir::kernels
