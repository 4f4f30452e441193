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
/// out[r * n] for r < MR: rows of A (qa, da, ga at their row 0) times weight row j.
template <int MR>
void rows_times_weight_row(const Int4View& w, int64_t j, const int8_t* qa, const float* da,
                           const float* ga, float alpha, float* out, int64_t n) {
  const int64_t k = w.cols, nb = k / kInt4Block, groups = k / w.group;
  const int64_t per_group = w.group / kInt4Block;
  const uint8_t* codes = w.codes + j * (k / 2);
  const float* s = w.scales + j * groups;
  const float* off = w.offsets ? w.offsets + j * groups : nullptr;
  const __m128i low = _mm_set1_epi8(0x0f);
  const __m256i ones = _mm256_set1_epi16(1);
  __m256 acc[MR];
  float offset_term[MR];
  for (int r = 0; r < MR; ++r) acc[r] = _mm256_setzero_ps(), offset_term[r] = 0.0f;
  for (int64_t g = 0; g < groups; ++g) {
    const float sg = s[g], mg = off ? off[g] : -8.0f * sg;
    for (int r = 0; r < MR; ++r) offset_term[r] += mg * ga[r * groups + g];
    for (int64_t b = g * per_group; b < (g + 1) * per_group; ++b) {
      const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + b * 16));
      const __m256i wq =
          _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(raw, 4), low), _mm_and_si128(raw, low));
      for (int r = 0; r < MR; ++r) {
        const __m256i av =
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qa + r * k + b * kInt4Block));
        const __m256i dot = _mm256_madd_epi16(_mm256_maddubs_epi16(wq, av), ones);
        acc[r] =
            _mm256_fmadd_ps(_mm256_cvtepi32_ps(dot), _mm256_set1_ps(sg * da[r * nb + b]), acc[r]);
      }
    }
  }
  for (int r = 0; r < MR; ++r) out[r * n] = alpha * (hsum(acc[r]) + offset_term[r]);
}
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
                  int64_t j0, int64_t j1, float alpha, float* out) {
  const int64_t k = w.cols, n = w.rows, nb = k / kInt4Block, groups = k / w.group;
#if defined(__AVX2__)
  int64_t i = 0;
  for (; i + 4 <= m; i += 4)
    for (int64_t j = j0; j < j1; ++j)
      rows_times_weight_row<4>(w, j, qa + i * k, da + i * nb, ga + i * groups, alpha,
                               out + i * n + j, n);
  for (; i < m; ++i)
    for (int64_t j = j0; j < j1; ++j)
      rows_times_weight_row<1>(w, j, qa + i * k, da + i * nb, ga + i * groups, alpha,
                               out + i * n + j, n);
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
  parallel_chunks(n, std::max<int64_t>(1, (int64_t{1} << 16) / k), [&](int64_t j0, int64_t j1) {
    int4_gemm_q8(w, qa, da, ga, m, j0, j1, alpha, out);
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
