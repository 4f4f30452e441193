#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tir::kernels {

/// The range [*lo, *hi] of x[i] (times f[i] when kScaled) over [0, count), widened to hold 0
/// so that zero stays exact when quantized; returns whether every value is finite (no NaN, no
/// infinity). The int8 kernels' activation quantizers share it.
template <bool kScaled>
bool finite_range(const float* x, const float* f, int64_t count, float* lo, float* hi) {
  float mn = 0, mx = 0;
  int64_t i = 0;
  bool nan = false;
#if defined(__AVX2__)
  __m256 vmn = _mm256_setzero_ps(), vmx = _mm256_setzero_ps(), vnan = _mm256_setzero_ps();
  for (; i + 8 <= count; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    if constexpr (kScaled) v = _mm256_mul_ps(v, _mm256_loadu_ps(f + i));
    vmn = _mm256_min_ps(vmn, v);
    vmx = _mm256_max_ps(vmx, v);
    vnan = _mm256_or_ps(vnan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
  alignas(32) float a[8], b[8];
  _mm256_store_ps(a, vmn);
  _mm256_store_ps(b, vmx);
  for (int k = 0; k < 8; ++k) mn = std::min(mn, a[k]), mx = std::max(mx, b[k]);
  nan = _mm256_movemask_ps(vnan) != 0;
#endif
  for (; i < count; ++i) {
    const float v = kScaled ? x[i] * f[i] : x[i];
    nan |= std::isnan(v);
    mn = std::min(mn, v);
    mx = std::max(mx, v);
  }
  *lo = mn;
  *hi = mx;
  return !nan && std::isfinite(mn) && std::isfinite(mx);
}

}  // namespace tir::kernels
