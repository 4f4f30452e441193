// The sum of the eight floats of an AVX2 register, for the GEMMs with hand-written AVX2 inner
// loops (int4/gemm_int4.cc, onednn/gemm_half_weight.cc).
#pragma once

#if defined(__AVX2__)
#include <immintrin.h>

namespace tir::kernels {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

}  // namespace tir::kernels
#endif
