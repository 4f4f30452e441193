#include "kernels/cpu/int8/gemv_int8.h"

#include <immintrin.h>

namespace tir::kernels {
namespace {

#if TIR_HAS_ISA_VARIANTS
TIR_ISA_VARIANTS_BEGIN
/// Rows [j0, j1) of B against a, ROWS rows per pass (1 or 4).
template <int ROWS>
TIR_TARGET_AVX512_VNNI void gemv_rows_vnni(const uint8_t* a, const int8_t* b, int64_t k, int64_t j,
                                           const float* scales, float* out) {
  const int64_t full = k / 64 * 64;
  __m512i acc[ROWS];
  for (int r = 0; r < ROWS; ++r) acc[r] = _mm512_setzero_si512();
  const int8_t* row = b + j * k;
  for (int64_t i = 0; i < full; i += 64) {
    const __m512i av = _mm512_loadu_si512(a + i);
    for (int r = 0; r < ROWS; ++r)
      acc[r] = _mm512_dpbusd_epi32(acc[r], av, _mm512_loadu_si512(row + r * k + i));
  }
  if (k > full) {  // masked-off bytes are zero and never touched in memory
    const __mmask64 tail = ~0ull >> (64 - (k - full));
    const __m512i av = _mm512_maskz_loadu_epi8(tail, a + full);
    for (int r = 0; r < ROWS; ++r)
      acc[r] = _mm512_dpbusd_epi32(acc[r], av, _mm512_maskz_loadu_epi8(tail, row + r * k + full));
  }
  for (int r = 0; r < ROWS; ++r)
    out[j + r] = float(_mm512_reduce_add_epi32(acc[r])) * scales[j + r];
}

TIR_TARGET_AVX512_VNNI void gemv_vnni(const uint8_t* a, const int8_t* b, int64_t k, int64_t j0,
                                      int64_t j1, const float* scales, float* out) {
  int64_t j = j0;
  for (; j + 4 <= j1; j += 4) gemv_rows_vnni<4>(a, b, k, j, scales, out);
  for (; j < j1; ++j) gemv_rows_vnni<1>(a, b, k, j, scales, out);
}
TIR_ISA_VARIANTS_END
#endif

}  // namespace

namespace {

/// sum over i < count of a[i] * b[i], exact in int32 (the baseline variant).
int32_t dot_u8_s8(const uint8_t* a, const int8_t* b, int64_t count, bool a7) {
  int64_t i = 0;
  int32_t sum = 0;
#if defined(__AVX2__)
  const auto load = [](const void* p) {
    return _mm256_loadu_si256(static_cast<const __m256i*>(p));
  };
  const __m256i ones = _mm256_set1_epi16(1);
  __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
  if (a7) {
    for (; i + 64 <= count; i += 64) {
      const __m256i p0 = _mm256_maddubs_epi16(load(a + i), load(b + i));
      const __m256i p1 = _mm256_maddubs_epi16(load(a + i + 32), load(b + i + 32));
      acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(p0, ones));
      acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(p1, ones));
    }
  }
  for (; i + 16 <= count; i += 16) {
    const auto* pa = reinterpret_cast<const __m128i*>(a + i);
    const auto* pb = reinterpret_cast<const __m128i*>(b + i);
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128(pa)),
                                                    _mm256_cvtepi8_epi16(_mm_loadu_si128(pb))));
  }
  const __m256i acc = _mm256_add_epi32(acc0, acc1);
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  sum = _mm_cvtsi128_si32(s);
#endif
  for (; i < count; ++i) sum += int32_t(a[i]) * int32_t(b[i]);
  return sum;
}

}  // namespace

void int8_gemv(const uint8_t* a, const int8_t* b, int64_t k, int64_t j0, int64_t j1,
               const float* scales, bool a7, CpuIsa isa, float* out) {
#if TIR_HAS_ISA_VARIANTS
  if (isa == CpuIsa::kAvx512Vnni) return gemv_vnni(a, b, k, j0, j1, scales, out);
#else
  (void)isa;
#endif
  for (int64_t j = j0; j < j1; ++j) out[j] = float(dot_u8_s8(a, b + j * k, k, a7)) * scales[j];
}

}  // namespace tir::kernels
