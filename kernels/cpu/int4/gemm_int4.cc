#include "kernels/cpu/int4/gemm_int4.h"

#include <immintrin.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/cpu/hsum_avx2.h"
#include "kernels/cpu/parallel.h"
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

#if defined(__AVX2__)
/// sum over g < count of x[g] * y[g], 8 at a time (the offset terms, as dot_f32 below).
float dot_f32_avx2(const float* x, const float* y, int64_t count) {
  __m256 acc = _mm256_setzero_ps();
  int64_t g = 0;
  for (; g + 8 <= count; g += 8)
    acc = _mm256_fmadd_ps(_mm256_loadu_ps(x + g), _mm256_loadu_ps(y + g), acc);
  float sum = hsum(acc);
  for (; g < count; ++g) sum += x[g] * y[g];
  return sum;
}

/// out[r * n + c] for r < MR rows of A (qa, da, ga at their row 0) and c < NR weight rows
/// from j: one block (32 codes) per maddubs, MR x NR independent accumulators (decode: 1 x 4)
/// so the FMA chains overlap; the offset term as one dot product per pair.
template <int MR, int NR>
void tile_avx2(const Int4View& w, int64_t j, const int8_t* qa, const float* da, const float* ga,
               float alpha, float* out, int64_t n) {
  const int64_t k = w.cols, nb = k / kInt4Block, groups = k / w.group;
  const int shift = w.group == kInt4Block ? 0 : 2;  // a block's group is b >> shift
  const __m128i low = _mm_set1_epi8(0x0f);
  const __m256i ones = _mm256_set1_epi16(1);
  const uint8_t* codes[NR];
  const float* s[NR];
  for (int c = 0; c < NR; ++c)
    codes[c] = w.codes + (j + c) * (k / 2), s[c] = w.scales + (j + c) * groups;
  __m256 acc[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < NR; ++c) acc[r][c] = _mm256_setzero_ps();
  for (int64_t b = 0; b < nb; ++b) {
    __m256i wq[NR];
    __m256 sv[NR];
    for (int c = 0; c < NR; ++c) {
      const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes[c] + b * 16));
      wq[c] = _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(raw, 4), low), _mm_and_si128(raw, low));
      sv[c] = _mm256_broadcast_ss(s[c] + (b >> shift));
    }
    for (int r = 0; r < MR; ++r) {
      const __m256i av =
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qa + r * k + b * kInt4Block));
      const __m256 dv = _mm256_broadcast_ss(da + r * nb + b);
      for (int c = 0; c < NR; ++c) {
        const __m256i dot = _mm256_madd_epi16(_mm256_maddubs_epi16(wq[c], av), ones);
        acc[r][c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_mul_ps(sv[c], dv), acc[r][c]);
      }
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < NR; ++c) {
      const float* gr = ga + r * groups;
      const float offset = w.offsets ? dot_f32_avx2(w.offsets + (j + c) * groups, gr, groups)
                                     : -8.0f * dot_f32_avx2(s[c], gr, groups);
      out[r * n + c] = alpha * (hsum(acc[r][c]) + offset);
    }
}

/// Rows [i0, i1) of A by MR, columns [j0, j1) by NR (then 1).
template <int MR, int NR>
void tiles_avx2(const Int4View& w, const int8_t* qa, const float* da, const float* ga, int64_t i0,
                int64_t i1, int64_t j0, int64_t j1, float alpha, float* out) {
  const int64_t k = w.cols, n = w.rows, nb = k / kInt4Block, groups = k / w.group;
  for (int64_t i = i0; i + MR <= i1; i += MR) {
    int64_t j = j0;
    for (; j + NR <= j1; j += NR)
      tile_avx2<MR, NR>(w, j, qa + i * k, da + i * nb, ga + i * groups, alpha, out + i * n + j, n);
    for (; j < j1; ++j)
      tile_avx2<MR, 1>(w, j, qa + i * k, da + i * nb, ga + i * groups, alpha, out + i * n + j, n);
  }
}
#endif

#if TIR_HAS_ISA_VARIANTS
TIR_ISA_VARIANTS_BEGIN
/// The codes of blocks b and b + 1 (32 stored bytes) as 64 unsigned bytes in value order:
/// [low nibbles of b, high nibbles of b, low of b + 1, high of b + 1].
TIR_TARGET_AVX512_VNNI inline __m512i unpack_two_blocks(const uint8_t* p) {
  const __m256i raw = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  const __m256i low = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_and_si256(raw, low);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(raw, 4), low);
  const __m512i both = _mm512_inserti64x4(_mm512_zextsi256_si512(lo), hi, 1);
  return _mm512_shuffle_i64x2(both, both, 0xd8);  // 128-bit lanes 0, 2, 1, 3
}

/// sum over g < count of x[g] * y[g] (the offset terms: a weight row's per-group offsets or
/// scales times an activation row's per-group sums), 16 at a time.
TIR_TARGET_AVX512_VNNI inline float dot_f32(const float* x, const float* y, int64_t count) {
  __m512 acc = _mm512_setzero_ps();
  int64_t g = 0;
  for (; g + 16 <= count; g += 16)
    acc = _mm512_fmadd_ps(_mm512_loadu_ps(x + g), _mm512_loadu_ps(y + g), acc);
  if (g < count) {
    const __mmask16 tail = __mmask16((1u << (count - g)) - 1);
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, x + g), _mm512_maskz_loadu_ps(tail, y + g),
                          acc);
  }
  return _mm512_reduce_add_ps(acc);
}

/// out[r * n + c] for r < MR rows of A (qa, da, ga at their row 0) and c < NR weight rows from
/// j, with AVX512-VNNI: two blocks (64 codes) per vpdpbusd, whose int32 sums (8 lanes per
/// block) are scaled by each block's s_g * d_b in one FMA. MR x NR independent accumulators
/// (decode: 1 x 4) keep the FMA chains apart. An odd last block runs in 256 bits.
template <int MR, int NR>
TIR_TARGET_AVX512_VNNI void tile_vnni(const Int4View& w, int64_t j, const int8_t* qa,
                                      const float* da, const float* ga, float alpha, float* out,
                                      int64_t n) {
  const int64_t k = w.cols, nb = k / kInt4Block, groups = k / w.group;
  // w.group / 32 is 1 or 4: a block's group is b >> shift (no division in the loop).
  const int shift = w.group == kInt4Block ? 0 : 2;
  // Lanes 0-7 take element 0 of a pair of floats, lanes 8-15 element 1.
  const __m512i pair = _mm512_set_epi32(1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0);
  const uint8_t* codes[NR];
  const float* s[NR];
  for (int c = 0; c < NR; ++c)
    codes[c] = w.codes + (j + c) * (k / 2), s[c] = w.scales + (j + c) * groups;
  __m512 acc[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < NR; ++c) acc[r][c] = _mm512_setzero_ps();
  int64_t b = 0;
  for (; b + 2 <= nb; b += 2) {
    __m512i wq[NR];
    __m512 sv[NR];
    for (int c = 0; c < NR; ++c) {
      wq[c] = unpack_two_blocks(codes[c] + b * 16);
      sv[c] = _mm512_insertf32x8(_mm512_set1_ps(s[c][b >> shift]),
                                 _mm256_set1_ps(s[c][(b + 1) >> shift]), 1);
    }
    for (int r = 0; r < MR; ++r) {
      const __m512i av = _mm512_loadu_si512(qa + r * k + b * kInt4Block);
      // d_b, d_(b+1) of this row: one 8-byte load, spread over the two halves.
      const __m128d d2 = _mm_load_sd(reinterpret_cast<const double*>(da + r * nb + b));
      const __m512 dv = _mm512_permutexvar_ps(pair, _mm512_zextps128_ps512(_mm_castpd_ps(d2)));
      for (int c = 0; c < NR; ++c) {
        const __m512i dot = _mm512_dpbusd_epi32(_mm512_setzero_si512(), wq[c], av);
        acc[r][c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dot), _mm512_mul_ps(sv[c], dv), acc[r][c]);
      }
    }
  }
  float rest[MR][NR] = {};
  if (b < nb) {
    const __m128i low = _mm_set1_epi8(0x0f);
    for (int c = 0; c < NR; ++c) {
      const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes[c] + b * 16));
      const __m256i wq =
          _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(raw, 4), low), _mm_and_si128(raw, low));
      for (int r = 0; r < MR; ++r) {
        const __m256i av =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qa + r * k + b * kInt4Block));
        const __m256i dot = _mm256_dpbusd_epi32(_mm256_setzero_si256(), wq, av);
        rest[r][c] += hsum(_mm256_cvtepi32_ps(dot)) * (s[c][b >> shift] * da[r * nb + b]);
      }
    }
  }
  // The offset term: sum over groups of m_g * ga_g (symmetric: m_g = -8 s_g).
  for (int c = 0; c < NR; ++c)
    for (int r = 0; r < MR; ++r) {
      const float* gr = ga + r * groups;
      rest[r][c] += w.offsets ? dot_f32(w.offsets + (j + c) * groups, gr, groups)
                              : -8.0f * dot_f32(s[c], gr, groups);
    }
  for (int r = 0; r < MR; ++r)
    for (int c = 0; c < NR; ++c)
      out[r * n + c] = alpha * (_mm512_reduce_add_ps(acc[r][c]) + rest[r][c]);
}

/// Rows [i0, m) of A by 4 (then 1), columns [j0, j1) by NR (then 1).
template <int MR, int NR>
TIR_TARGET_AVX512_VNNI void tiles_vnni(const Int4View& w, const int8_t* qa, const float* da,
                                       const float* ga, int64_t i0, int64_t i1, int64_t j0,
                                       int64_t j1, float alpha, float* out) {
  const int64_t k = w.cols, n = w.rows, nb = k / kInt4Block, groups = k / w.group;
  for (int64_t i = i0; i + MR <= i1; i += MR) {
    int64_t j = j0;
    for (; j + NR <= j1; j += NR)
      tile_vnni<MR, NR>(w, j, qa + i * k, da + i * nb, ga + i * groups, alpha, out + i * n + j, n);
    for (; j < j1; ++j)
      tile_vnni<MR, 1>(w, j, qa + i * k, da + i * nb, ga + i * groups, alpha, out + i * n + j, n);
  }
}

TIR_TARGET_AVX512_VNNI void int4_gemm_q8_vnni(const Int4View& w, const int8_t* qa, const float* da,
                                              const float* ga, int64_t m, int64_t j0, int64_t j1,
                                              float alpha, float* out) {
  const int64_t rows4 = m / 4 * 4;
  tiles_vnni<4, 2>(w, qa, da, ga, 0, rows4, j0, j1, alpha, out);
  tiles_vnni<1, 4>(w, qa, da, ga, rows4, m, j0, j1, alpha, out);
}
TIR_ISA_VARIANTS_END
#endif

/// The same integers in plain loops (a build without AVX2).
void row_times_weight_row_plain(const Int4View& w, int64_t j, const int8_t* qa, const float* da,
                                const float* ga, float alpha, float* out) {
  const int64_t k = w.cols, groups = k / w.group, per_group = w.group / kInt4Block;
  uint8_t q[kInt4Block];
  float sum = 0.0f;
  for (int64_t g = 0; g < groups; ++g) {
    const float sg = w.scales[j * groups + g];
    const float mg = w.offsets ? w.offsets[j * groups + g] : -8.0f * sg;
    sum += mg * ga[g];
    for (int64_t b = g * per_group; b < (g + 1) * per_group; ++b) {
      int4_unpack_block(w.codes + j * (k / 2) + b * 16, q);
      int32_t dot = 0;
      for (int i = 0; i < kInt4Block; ++i) dot += int32_t(q[i]) * qa[b * kInt4Block + i];
      sum += float(dot) * (sg * da[b]);
    }
  }
  *out = alpha * sum;
}

}  // namespace

bool int4_quantize_row_q8(const float* a, int64_t k, int64_t group, int8_t* qa, float* da,
                          float* ga) {
  const int64_t nb = k / kInt4Block, per_group = group / kInt4Block;
  std::fill(ga, ga + k / group, 0.0f);
  for (int64_t b = 0; b < nb; ++b) {
    const float* x = a + b * kInt4Block;
    float amax = 0.0f;
    for (int i = 0; i < kInt4Block; ++i) amax = std::max(amax, std::fabs(x[i]));
    for (int i = 0; i < kInt4Block; ++i)
      if (!(std::fabs(x[i]) <= FLT_MAX)) return false;  // NaN or infinity
    const float d = amax / 127.0f, inv = amax > 0.0f ? 127.0f / amax : 0.0f;
    int32_t sum = 0;
    for (int i = 0; i < kInt4Block; ++i) {
      const int8_t c = int8_t(std::nearbyint(x[i] * inv));
      qa[b * kInt4Block + i] = c;
      sum += c;
    }
    da[b] = d;
    ga[b / per_group] += d * float(sum);
  }
  return true;
}

void int4_gemm_q8(const Int4View& w, const int8_t* qa, const float* da, const float* ga, int64_t m,
                  int64_t j0, int64_t j1, float alpha, float* out, CpuIsa isa) {
#if TIR_HAS_ISA_VARIANTS
  if (isa == CpuIsa::kAvx512Vnni) return int4_gemm_q8_vnni(w, qa, da, ga, m, j0, j1, alpha, out);
#else
  (void)isa;
#endif
#if defined(__AVX2__)
  const int64_t rows4 = m / 4 * 4;
  tiles_avx2<4, 2>(w, qa, da, ga, 0, rows4, j0, j1, alpha, out);
  tiles_avx2<1, 4>(w, qa, da, ga, rows4, m, j0, j1, alpha, out);
#else
  int4_gemm_q8_plain(w, qa, da, ga, m, j0, j1, alpha, out);
#endif
}

void int4_gemm_q8_plain(const Int4View& w, const int8_t* qa, const float* da, const float* ga,
                        int64_t m, int64_t j0, int64_t j1, float alpha, float* out) {
  const int64_t k = w.cols, n = w.rows, nb = k / kInt4Block, groups = k / w.group;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = j0; j < j1; ++j)
      row_times_weight_row_plain(w, j, qa + i * k, da + i * nb, ga + i * groups, alpha,
                                 out + i * n + j);
}

const QuantizedWeight* Int4Gemm::stored(const KernelCall& call, const GemmParams& p) {
  const QuantizedWeight* q = call.input_quantization(p.b_input);
  return q && q->int4() && p.b_transposed && q->axis == 0 && q->rows == p.n && q->cols == p.k &&
                 int4_group_valid(q->group) && p.k % q->group == 0
             ? q
             : nullptr;
}

bool Int4Gemm::wanted(const KernelCall& call, const GemmParams& p) {
  return stored(call, p) != nullptr && p.m > 0 &&
         (p.c_input < 0 || p.beta == 0.0 || (p.beta == 1.0 && p.c_row_stride == 0));
}

Status Int4Gemm::build(const KernelCall& call, const GemmParams& p, size_t* scratch) {
  p_ = p;
  bias_ = p.c_input >= 0 && p.beta != 0.0;
  const QuantizedWeight* q = stored(call, p);
  if (!q) return op_error(call, StatusCode::kInternal, "int4 GEMM without an int4 weight");
  size_t end = align64(*scratch);
  codes_offset_ = end;
  end += align64(size_t(p.m * p.k));
  scales_offset_ = end;  // per row: k / 32 block scales, then a NaN flag
  end += align64(size_t(p.m * (p.k / kInt4Block + 1)) * sizeof(float));
  sums_offset_ = end;  // per row: k / group terms
  end += align64(size_t(p.m * (p.k / q->group)) * sizeof(float));
  *scratch = end;
  return ok_status();
}

Status Int4Gemm::run(const KernelCall& call, void* scratch) const {
  // Read at every run: a weight swap (runtime/weights) binds another int4 storage of the same
  // shape, or none, which this node was not prepared for.
  const QuantizedWeight* q = stored(call, p_);
  if (!q)
    return op_error(call, StatusCode::kInternal,
                    "weight is no longer stored int4 (swapped since prepare): prepare again");
  const Int4View w{
      reinterpret_cast<const uint8_t*>(q->data), q->scales, q->offsets, q->rows, q->cols, q->group};
  const int64_t m = p_.m, k = p_.k, n = p_.n, nb = k / kInt4Block, groups = k / q->group;
  const float* a = call.inputs[p_.a_input].data_as<const float>();
  float* out = call.outputs[0].data_as<float>();
  char* base = static_cast<char*>(scratch);
  auto* qa = reinterpret_cast<int8_t*>(base + codes_offset_);
  auto* da = reinterpret_cast<float*>(base + scales_offset_);
  auto* bad = da + m * nb;  // 1: the row holds NaN or infinity
  auto* ga = reinterpret_cast<float*>(base + sums_offset_);
  parallel_chunks(m, std::max<int64_t>(1, (int64_t{1} << 15) / k), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const bool ok =
          int4_quantize_row_q8(a + i * k, k, q->group, qa + i * k, da + i * nb, ga + i * groups);
      bad[i] = ok ? 0.0f : 1.0f;
      if (!ok) {  // codes that multiply to zero; the row becomes NaN below
        std::memset(qa + i * k, 0, size_t(k));
        std::fill(da + i * nb, da + (i + 1) * nb, 0.0f);
        std::fill(ga + i * groups, ga + (i + 1) * groups, 0.0f);
      }
    }
  });
  // Chunks of output channels whose codes (k / 2 bytes each) fill about 32 KB: every row of
  // A is run against a chunk while it is in cache.
  const float alpha = float(p_.alpha);
  const CpuIsa isa = cpu_isa();
  parallel_chunks(n, std::max<int64_t>(1, (int64_t{1} << 16) / k), [&](int64_t j0, int64_t j1) {
    int4_gemm_q8(w, qa, da, ga, m, j0, j1, alpha, out, isa);
  });
  const float* bias = bias_ ? call.inputs[p_.c_input].data_as<const float>() : nullptr;
  const bool bias_per_col = bias_ && p_.c_col_stride != 0;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t i = 0; i < m; ++i) {
    float* y = out + i * n;
    if (bad[i] != 0.0f) {
      std::fill(y, y + n, nan);
      continue;
    }
    if (bias_per_col) {
      for (int64_t j = 0; j < n; ++j) y[j] += bias[j];
    } else if (bias) {
      for (int64_t j = 0; j < n; ++j) y[j] += bias[0];
    }
  }
  apply_activation(call.epilogue, out, m * n);
  return ok_status();
}

}  // namespace tir::kernels
