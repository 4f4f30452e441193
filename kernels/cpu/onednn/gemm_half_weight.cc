#include "kernels/cpu/onednn/gemm_half_weight.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "core/float16.h"
#include "kernels/cpu/hsum_avx2.h"
#include "kernels/cpu/onednn/onednn_epilogue.h"
#include "kernels/cpu/parallel.h"
#include "kernels/epilogue.h"

namespace tir::kernels {
namespace {

using dnnl::memory;

/// Bytes of widened float32 B per tile: the tile and A's rows stay in the caches while oneDNN
/// multiplies them.
constexpr int64_t kTileBytes = int64_t{2} << 20;

template <bool kBf16>
float widen1(uint16_t h) {
  return kBf16 ? bf16_to_float(h) : fp16_to_float(h);
}

#if defined(__AVX2__) && defined(__F16C__)
/// Eight half-precision values from `p` as float32 lanes (exact).
template <bool kBf16>
__m256 widen8(const uint16_t* p) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (kBf16) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  return _mm256_cvtph_ps(h);
}
#endif

template <bool kBf16>
void widen(const uint16_t* src, int64_t n, float* dst) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__F16C__)
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, widen8<kBf16>(src + i));
#endif
  for (; i < n; ++i) dst[i] = widen1<kBf16>(src[i]);
}

/// sum over i < n of a[i] * b[i], b widened as it is read.
template <bool kBf16>
float dot(const float* a, const uint16_t* b, int64_t n) {
  int64_t i = 0;
  float sum = 0.f;
#if defined(__AVX2__) && defined(__F16C__)
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps()};
  for (; i + 32 <= n; i += 32)
    for (int u = 0; u < 4; ++u)
      acc[u] =
          _mm256_fmadd_ps(_mm256_loadu_ps(a + i + 8 * u), widen8<kBf16>(b + i + 8 * u), acc[u]);
  for (; i + 8 <= n; i += 8)
    acc[0] = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), widen8<kBf16>(b + i), acc[0]);
  sum = hsum(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])));
#endif
  for (; i < n; ++i) sum += a[i] * widen1<kBf16>(b[i]);
  return sum;
}

/// out[r] = dot(a, b + r * ldb) for the 4 rows r of a [N, K] B: each load of A serves four
/// rows (the rows' streams are read side by side), eight accumulators hide the FMA latency.
template <bool kBf16>
void dot4(const float* a, const uint16_t* b, int64_t ldb, int64_t n, float* out) {
  int64_t i = 0;
#if defined(__AVX2__) && defined(__F16C__)
  __m256 acc[8];
  for (__m256& v : acc) v = _mm256_setzero_ps();
  for (; i + 16 <= n; i += 16) {
    const __m256 a0 = _mm256_loadu_ps(a + i), a1 = _mm256_loadu_ps(a + i + 8);
    for (int r = 0; r < 4; ++r) {
      acc[r] = _mm256_fmadd_ps(a0, widen8<kBf16>(b + r * ldb + i), acc[r]);
      acc[4 + r] = _mm256_fmadd_ps(a1, widen8<kBf16>(b + r * ldb + i + 8), acc[4 + r]);
    }
  }
  for (int r = 0; r < 4; ++r) out[r] = hsum(_mm256_add_ps(acc[r], acc[4 + r]));
#else
  for (int r = 0; r < 4; ++r) out[r] = 0.f;
#endif
  for (; i < n; ++i)
    for (int r = 0; r < 4; ++r) out[r] += a[i] * widen1<kBf16>(b[r * ldb + i]);
}

/// Columns of a [K, N] B one task of the row products covers: eight float32 vectors.
constexpr int64_t kBlockCols = 64;

/// out[c] = sum over k of a[k] * b[k * ldb + c] for c < cols (<= kBlockCols).
template <bool kBf16>
void axpy_block(const float* a, const uint16_t* b, int64_t k, int64_t ldb, int64_t cols,
                float* out) {
#if defined(__AVX2__) && defined(__F16C__)
  if (cols == kBlockCols) {
    __m256 acc[8];
    for (__m256& v : acc) v = _mm256_setzero_ps();
    for (int64_t r = 0; r < k; ++r) {
      const __m256 av = _mm256_set1_ps(a[r]);
      const uint16_t* row = b + r * ldb;
      for (int u = 0; u < 8; ++u) acc[u] = _mm256_fmadd_ps(av, widen8<kBf16>(row + 8 * u), acc[u]);
    }
    for (int u = 0; u < 8; ++u) _mm256_storeu_ps(out + 8 * u, acc[u]);
    return;
  }
#endif
  float acc[kBlockCols] = {};
  for (int64_t r = 0; r < k; ++r) {
    const uint16_t* row = b + r * ldb;
    for (int64_t c = 0; c < cols; ++c) acc[c] += a[r] * widen1<kBf16>(row[c]);
  }
  std::copy(acc, acc + cols, out);
}

/// out[i, j] = alpha * (A @ B)[i, j] for rows i < p.m, B as stored ([N, K] when transposed).
template <bool kBf16>
void row_products(const GemmParams& p, const float* a, const uint16_t* b, float* out) {
  const float alpha = static_cast<float>(p.alpha);
  if (p.b_transposed) {  // four of B's rows at a time, then the last few one by one
    parallel_chunks(p.n, 16, [&](int64_t j0, int64_t j1) {
      int64_t j = j0;
      for (float sums[4]; j + 4 <= j1; j += 4)
        for (int64_t i = 0; i < p.m; ++i) {
          dot4<kBf16>(a + i * p.k, b + j * p.k, p.k, p.k, sums);
          for (int r = 0; r < 4; ++r) out[i * p.n + j + r] = alpha * sums[r];
        }
      for (; j < j1; ++j)
        for (int64_t i = 0; i < p.m; ++i)
          out[i * p.n + j] = alpha * dot<kBf16>(a + i * p.k, b + j * p.k, p.k);
    });
    return;
  }
  const int64_t blocks = (p.n + kBlockCols - 1) / kBlockCols;
  parallel_chunks(blocks, 1, [&](int64_t c0, int64_t c1) {
    float acc[kBlockCols];
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t j0 = c * kBlockCols, cols = std::min(kBlockCols, p.n - j0);
      for (int64_t i = 0; i < p.m; ++i) {
        axpy_block<kBf16>(a + i * p.k, b + j0, p.k, p.n, cols, acc);
        for (int64_t j = 0; j < cols; ++j) out[i * p.n + j0 + j] = alpha * acc[j];
      }
    }
  });
}

}  // namespace

Status HalfWeightGemm::build(const KernelCall& call, const GemmParams& p, size_t* scratch) {
  p_ = p;
  mode_ = gemm_c_mode(p_);
  tiled_ = p_.m >= kTiledRows;
  native_ = false;
  *scratch = 0;
  if (!tiled_) return ok_status();
  if (p_.b_dtype == DType::kBFloat16 && onednn_native_bf16()) {
    TIR_ASSIGN_OR_RETURN(native_, make_native(call, scratch));
    if (native_) return ok_status();
    *scratch = 0;
  }
  const int64_t fit = std::max<int64_t>(kTileBytes / (4 * p_.k) / 16 * 16, 16);
  const int64_t cols = std::min(p_.n, fit);
  size_t primitive_scratch = 0;
  TIR_RETURN_IF_ERROR(make_tile(call, cols, &full_, &primitive_scratch));
  tail_ = Tile{};
  if (p_.n % cols != 0)
    TIR_RETURN_IF_ERROR(make_tile(call, p_.n % cols, &tail_, &primitive_scratch));
  tile_offset_ = align64(primitive_scratch);
  *scratch = tile_offset_ + static_cast<size_t>(cols * p_.k) * sizeof(float);
  return ok_status();
}

memory::desc HalfWeightGemm::bias_desc(int64_t cols) const {
  if (mode_ != Mode::kBias) return {};
  const memory::dim bn = p_.c_col_stride == 0 ? 1 : cols;
  return memory::desc({1, bn}, memory::data_type::f32, memory::dims{bn, 1});
}

dnnl::primitive_attr HalfWeightGemm::make_attr(const KernelCall& call) const {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (p_.alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(p_.alpha)});
  dnnl::post_ops ops;
  if (mode_ == Mode::kSum) ops.append_sum(static_cast<float>(p_.beta));
  onednn_append_activation(ops, call.epilogue);
  if (ops.len() > 0) attr.set_post_ops(ops);
  return attr;
}

void HalfWeightGemm::init_tile(const KernelCall& call, const dnnl::matmul::primitive_desc& pd,
                               int64_t cols, Tile* tile) const {
  dnnl::engine& eng = onednn_engine(call);
  tile->cols = cols;
  tile->prim = dnnl::matmul(pd);
  tile->src = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
  tile->wei = memory(pd.weights_desc(), eng, DNNL_MEMORY_NONE);
  tile->dst = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
  tile->scratchpad = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
  tile->args = {{DNNL_ARG_SRC, tile->src.get()},
                {DNNL_ARG_WEIGHTS, tile->wei.get()},
                {DNNL_ARG_DST, tile->dst.get()},
                {DNNL_ARG_SCRATCHPAD, tile->scratchpad.get()}};
  if (mode_ == Mode::kBias) {
    tile->bias = memory(bias_desc(cols), eng, DNNL_MEMORY_NONE);
    tile->args.push_back({DNNL_ARG_BIAS, tile->bias.get()});
  }
}

Status HalfWeightGemm::make_tile(const KernelCall& call, int64_t cols, Tile* tile,
                                 size_t* scratch) {
  using dt = memory::data_type;
  const memory::dim m = p_.m, k = p_.k, n = p_.n;
  const memory::desc src_md({m, k}, dt::f32, memory::dims{k, 1});
  // The widened tile: B's rows j0.. as [cols, K] when B is [N, K], else [K, cols].
  const memory::desc wei_md({k, cols}, dt::f32,
                            p_.b_transposed ? memory::dims{1, k} : memory::dims{cols, 1});
  const memory::desc dst_md({m, cols}, dt::f32, memory::dims{n, 1});  // columns of the output
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src_md, wei_md, bias_desc(cols), dst_md),
                                        make_attr(call), onednn_engine(call));
  init_tile(call, pd, cols, tile);
  *scratch = std::max(*scratch, pd.scratchpad_desc().get_size());
  return ok_status();
}

Result<bool> HalfWeightGemm::make_native(const KernelCall& call, size_t* scratch) {
  using dt = memory::data_type;
  const memory::dim m = p_.m, k = p_.k, n = p_.n;
  const memory::desc src_f32({m, k}, dt::f32, memory::dims{k, 1});
  const memory::desc wei_user({k, n}, dt::bf16,
                              p_.b_transposed ? memory::dims{1, k} : memory::dims{n, 1});
  dnnl::matmul::primitive_desc pd;
  try {
    pd = dnnl::matmul::primitive_desc(
        dnnl::matmul::desc(memory::desc({m, k}, dt::bf16, memory::dims{k, 1}),
                           memory::desc({k, n}, dt::bf16, memory::format_tag::any), bias_desc(n),
                           memory::desc({m, n}, dt::f32, memory::dims{n, 1})),
        make_attr(call), onednn_engine(call));
  } catch (const dnnl::error& e) {
    onednn_note_bf16_unavailable(call, e.what());
    return false;
  }
  init_tile(call, pd, n, &whole_);
  size_t end = align64(pd.scratchpad_desc().get_size());
  TIR_RETURN_IF_ERROR(a_bf16_.init(call, src_f32, pd.src_desc(), p_.a_input, &end));
  TIR_RETURN_IF_ERROR(b_packed_.init(call, wei_user, pd.weights_desc(), p_.b_input, &end));
  *scratch = end;
  return true;
}

Status HalfWeightGemm::run_native(const KernelCall& call, float* out, void* scratch) {
  TIR_ASSIGN_OR_RETURN(void* a, a_bf16_.convert(call, call.inputs[p_.a_input].data, scratch));
  TIR_ASSIGN_OR_RETURN(void* b, b_packed_.convert(call, call.inputs[p_.b_input].data, scratch));
  whole_.src.set_data_handle(a);
  whole_.wei.set_data_handle(b);
  whole_.dst.set_data_handle(out);
  whole_.scratchpad.set_data_handle(scratch);
  if (mode_ == Mode::kBias)
    whole_.bias.set_data_handle(const_cast<void*>(call.inputs[p_.c_input].data));
  TIR_RETURN_IF_ERROR(onednn_execute(call, whole_.prim, whole_.args));
  onednn_finish_activation(call.epilogue, call.outputs[0]);
  return ok_status();
}

void HalfWeightGemm::widen_tile(const uint16_t* b, int64_t j0, int64_t cols, float* dst) const {
  const bool bf16 = p_.b_dtype == DType::kBFloat16;
  const auto widen_span = bf16 ? &widen<true> : &widen<false>;
  if (p_.b_transposed) {  // rows j0.. of [N, K]: one contiguous run
    const int64_t total = cols * p_.k;
    parallel_chunks(total, int64_t{1} << 16,
                    [&](int64_t s, int64_t e) { widen_span(b + j0 * p_.k + s, e - s, dst + s); });
    return;
  }
  parallel_chunks(p_.k, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) widen_span(b + r * p_.n + j0, cols, dst + r * cols);
  });
}

Status HalfWeightGemm::run_tiled(const KernelCall& call, float* out, void* scratch) {
  const float* a = call.inputs[p_.a_input].data_as<const float>();
  const auto* b = static_cast<const uint16_t*>(call.inputs[p_.b_input].data);
  const float* c = p_.c_input >= 0 ? call.inputs[p_.c_input].data_as<const float>() : nullptr;
  float* tile_data = reinterpret_cast<float*>(static_cast<char*>(scratch) + tile_offset_);
  for (int64_t j0 = 0; j0 < p_.n; j0 += full_.cols) {
    Tile& t = p_.n - j0 >= full_.cols ? full_ : tail_;
    widen_tile(b, j0, t.cols, tile_data);
    t.src.set_data_handle(const_cast<float*>(a));
    t.wei.set_data_handle(tile_data);
    t.dst.set_data_handle(out + j0);
    t.scratchpad.set_data_handle(scratch);
    if (mode_ == Mode::kBias)
      t.bias.set_data_handle(const_cast<float*>(c + (p_.c_col_stride == 0 ? 0 : j0)));
    TIR_RETURN_IF_ERROR(onednn_execute(call, t.prim, t.args));
  }
  onednn_finish_activation(call.epilogue, call.outputs[0]);
  return ok_status();
}

void HalfWeightGemm::run_rows(const KernelCall& call, float* out) const {
  const float* a = call.inputs[p_.a_input].data_as<const float>();
  const auto* b = static_cast<const uint16_t*>(call.inputs[p_.b_input].data);
  if (p_.b_dtype == DType::kBFloat16) {
    row_products<true>(p_, a, b, out);
  } else {
    row_products<false>(p_, a, b, out);
  }
  if (mode_ != Mode::kNone) {
    const float* c = call.inputs[p_.c_input].data_as<const float>();
    const float beta = static_cast<float>(p_.beta);
    for (int64_t i = 0; i < p_.m; ++i)
      for (int64_t j = 0; j < p_.n; ++j)
        out[i * p_.n + j] += beta * c[i * p_.c_row_stride + j * p_.c_col_stride];
  }
  apply_activation(call.epilogue, out, p_.m * p_.n);
}

Status HalfWeightGemm::run(const KernelCall& call, void* scratch) {
  float* out = call.outputs[0].data_as<float>();
  if (!tiled_) {
    run_rows(call, out);
    return ok_status();
  }
  if (mode_ == Mode::kSum)  // beta * C arrives through the sum post-op
    gemm_copy_c(p_, call.inputs[p_.c_input].data_as<const float>(), out);
  if (native_) return onednn_guard(call, [&] { return run_native(call, out, scratch); });
  return onednn_guard(call, [&] { return run_tiled(call, out, scratch); });
}

}  // namespace tir::kernels
