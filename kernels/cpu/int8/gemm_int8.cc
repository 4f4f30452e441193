#include "kernels/cpu/int8/gemm_int8.h"

#include <immintrin.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "core/quantize.h"
#include "kernels/cpu/int8/gemv_int8.h"
#include "kernels/cpu/int8/value_range.h"
#include "kernels/cpu/onednn/onednn_epilogue.h"
#include "kernels/cpu/onednn/onednn_operand.h"
#include "kernels/cpu/parallel.h"
#include "kernels/packed_cache.h"

namespace tir::kernels {

using dnnl::memory;
using dt = memory::data_type;

struct Int8Gemm::PackedB {
  memory weights;                 // int8, pd.weights_desc() (not with gemv_), in `block` or
                                  // a layout cache's bytes
  const int8_t* plain = nullptr;  // gemv_: B [N, K], the stored bytes or `own`
  std::vector<int8_t> own;        // B quantized here (from float32)
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> block;  // the storable entry (pack_b) made here
  std::vector<float> scales;             // per output channel (n)
  std::vector<float> zp_sum;      // scales[j] * sum over k of q_B[k, j]: a row's zero-point term
  std::vector<float> inv_smooth;  // per k: A's factor of a smoothed weight; empty: none
};

namespace {

/// q[i] = clamp(round_half_even(x[i] [* f[i] when kSmooth] * inv) + zp, 0, qmax), qmax 255
/// or 127 (int8_pairs_saturate).
template <bool kSmooth>
void quantize_u8(const float* x, const float* f, int64_t count, float inv, int32_t zp, uint8_t qmax,
                 uint8_t* q) {
  int64_t i = 0;
#if defined(__AVX2__)
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256i vzp = _mm256_set1_epi32(zp);
  const __m256i vmax = _mm256_set1_epi8(static_cast<char>(qmax));
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (; i + 32 <= count; i += 32) {
    __m256i r[4];
    for (int k = 0; k < 4; ++k) {  // cvtps rounds half to even (the default MXCSR mode)
      __m256 v = _mm256_loadu_ps(x + i + 8 * k);
      if constexpr (kSmooth) v = _mm256_mul_ps(v, _mm256_loadu_ps(f + i + 8 * k));
      r[k] = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(v, vinv)), vzp);
    }
    const __m256i w01 = _mm256_packs_epi32(r[0], r[1]), w23 = _mm256_packs_epi32(r[2], r[3]);
    const __m256i b = _mm256_min_epu8(_mm256_packus_epi16(w01, w23), vmax);  // [0, 255] first
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_permutevar8x32_epi32(b, order));
  }
#endif
  for (; i < count; ++i) {
    const float v = kSmooth ? x[i] * f[i] : x[i];
    const float r = std::nearbyint(v * inv) + float(zp);
    q[i] = static_cast<uint8_t>(std::clamp(r, 0.0f, float(qmax)));
  }
}

/// B's int8 storage when it holds B as the GEMM reads it: per output channel, B's rows and
/// columns as stored (linear's [N, K] has its channels on rows, axis 0); null otherwise.
const QuantizedWeight* stored_as_read(const KernelCall& call, const GemmParams& p) {
  const QuantizedWeight* stored = call.input_quantization(p.b_input);
  const int64_t rows = p.b_transposed ? p.n : p.k, cols = p.b_transposed ? p.k : p.n;
  const int axis = p.b_transposed ? 0 : 1;
  return stored && !stored->int4() && stored->rows == rows && stored->cols == cols &&
                 stored->axis == axis
             ? stored
             : nullptr;
}

/// Per output channel j, the sum of B's int8 values over k: rows of B^T ([N, K]) or columns
/// of B ([K, N]), in loops over contiguous bytes the compiler vectorizes (a 1.2 B-parameter
/// model's sums are made on its first prefill). int32 holds 127 x k for k < 2^24.
std::vector<int32_t> channel_sums(const int8_t* q, int64_t k, int64_t n, bool transposed) {
  std::vector<int32_t> sums(size_t(n), 0);
  if (transposed) {
    parallel_chunks(n, 16, [&](int64_t begin, int64_t end) {
      for (int64_t j = begin; j < end; ++j) {
        const int8_t* row = q + j * k;
        int32_t s = 0;
        for (int64_t i = 0; i < k; ++i) s += row[i];
        sums[size_t(j)] = s;
      }
    });
  } else {
    int32_t* out = sums.data();
    for (int64_t i = 0; i < k; ++i) {
      const int8_t* row = q + i * n;
      for (int64_t j = 0; j < n; ++j) out[j] += row[j];
    }
  }
  return sums;
}

/// What B is, for telling a weight swap: its float32 bytes, or its int8 storage where it was
/// bound without them.
const void* b_identity(const KernelCall& call, const GemmParams& p) {
  if (const void* data = call.inputs[p.b_input].data) return data;
  const QuantizedWeight* stored = call.input_quantization(p.b_input);
  return stored ? stored->data : nullptr;
}

}  // namespace

bool Int8Gemm::reads_stored(const KernelCall& call, const GemmParams& p) {
  return wanted(call, p) && stored_as_read(call, p) != nullptr;
}

bool Int8Gemm::wanted(const KernelCall& call, const GemmParams& p) {
  // B is a weight or constant: bytes known now, or int8 storage bound without them. An int4
  // storage is not int8 (kernels/cpu/int4 reads it, or the GEMM runs on its dequantization).
  const QuantizedWeight* q = call.input_quantization(p.b_input);
  if (q && q->int4()) q = nullptr;
  if (call.inputs[p.b_input].data == nullptr && q == nullptr) return false;
  if (call.precision != Precision::kInt8 && q == nullptr) return false;
  return p.c_input < 0 || p.beta == 0.0 || (p.beta == 1.0 && p.c_row_stride == 0);
}

Result<std::shared_ptr<Int8Gemm::PackedB>> Int8Gemm::pack_b(const KernelCall& call,
                                                            const void* data,
                                                            const memory::desc& layout) {
  const WeightKey key = call.input_key(p_.b_input);
  const bool cached = call.packed_cache() != nullptr && key.valid();
  std::shared_ptr<void> made;
  if (gemv_) {  // plain rows: the stored bytes in place, else the ones quantized here
    const auto make = [&]() -> Result<std::shared_ptr<void>> {
      auto packed = std::make_shared<PackedB>();
      const int8_t* qdata = quantize_b(call, data, packed.get());
      packed->plain = packed->own.empty() ? qdata : packed->own.data();
      return std::shared_ptr<void>(std::move(packed));
    };
    if (cached) {
      TIR_ASSIGN_OR_RETURN(made, call.packed_cache()->get(key, "int8 plain B^T", make));
    } else {
      TIR_ASSIGN_OR_RETURN(made, make());
    }
    return std::static_pointer_cast<PackedB>(made);
  }
  // One block of bytes: B in `layout`, then its scales, zero-point sums and smoothing
  // factors, so that the whole entry can be kept in a layout cache file (storable).
  const QuantizedWeight* stored = stored_as_read(call, p_);
  const bool smoothed = stored && stored->inv_smooth;
  const size_t wbytes = align64(layout.get_size());
  const size_t size = wbytes + sizeof(float) * size_t(2 * p_.n + (smoothed ? p_.k : 0));
  const auto wrap = [&](std::span<const uint8_t> bytes) -> Result<std::shared_ptr<void>> {
    auto packed = std::make_shared<PackedB>();
    packed->weights = memory(layout, onednn_engine(call), const_cast<uint8_t*>(bytes.data()));
    const auto* tail = reinterpret_cast<const float*>(bytes.data() + wbytes);
    packed->scales.assign(tail, tail + p_.n);
    packed->zp_sum.assign(tail + p_.n, tail + 2 * p_.n);
    if (smoothed) packed->inv_smooth.assign(tail + 2 * p_.n, tail + 2 * p_.n + p_.k);
    return std::shared_ptr<void>(std::move(packed));
  };
  const auto make = [&]() -> Result<PackedEntry> {
    auto packed = std::make_shared<PackedB>();
    const int8_t* qdata = quantize_b(call, data, packed.get());
    packed->block.reset(static_cast<uint8_t*>(std::aligned_alloc(64, align64(size))));
    if (!packed->block)
      return Status(StatusCode::kInternal, "out of memory packing an int8 weight");
    uint8_t* block = packed->block.get();
    dnnl::engine& eng = onednn_engine(call);
    const memory::desc user({p_.k, p_.n}, dt::s8,
                            p_.b_transposed ? memory::dims{1, p_.k} : memory::dims{p_.n, 1});
    memory from(user, eng, const_cast<int8_t*>(qdata));
    packed->weights = memory(layout, eng, block);
    dnnl::reorder reorder(from, packed->weights);
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from.get()},
                                    {DNNL_ARG_TO, packed->weights.get()}};
    TIR_RETURN_IF_ERROR(onednn_execute(call, reorder, args));
    std::memset(block + layout.get_size(), 0, wbytes - layout.get_size());
    auto* tail = reinterpret_cast<float*>(block + wbytes);
    std::copy(packed->scales.begin(), packed->scales.end(), tail);
    std::copy(packed->zp_sum.begin(), packed->zp_sum.end(), tail + p_.n);
    std::copy(packed->inv_smooth.begin(), packed->inv_smooth.end(), tail + 2 * p_.n);
    packed->own.clear();
    packed->own.shrink_to_fit();
    const std::span<const uint8_t> bytes(block, size);
    return PackedEntry{std::shared_ptr<void>(std::move(packed)), bytes};
  };
  if (!cached) {
    TIR_ASSIGN_OR_RETURN(PackedEntry entry, make());
    return std::static_pointer_cast<PackedB>(entry.owner);
  }
  TIR_ASSIGN_OR_RETURN(
      made, call.packed_cache()->get_storable(key, pack_key(stored, layout), size, wrap, make));
  return std::static_pointer_cast<PackedB>(made);
}

const int8_t* Int8Gemm::quantize_b(const KernelCall& call, const void* data,
                                   PackedB* packed) const {
  const int64_t k = p_.k, n = p_.n;
  // Rows and columns of B as stored: linear's [N, K] has its channels on rows (axis 0).
  const int64_t rows = p_.b_transposed ? n : k, cols = p_.b_transposed ? k : n;
  const int axis = p_.b_transposed ? 0 : 1;
  const QuantizedWeight* stored = stored_as_read(call, p_);
  const int8_t* qdata = nullptr;
  if (stored) {
    qdata = stored->data;
    packed->scales.assign(stored->scales, stored->scales + n);
    if (stored->inv_smooth) packed->inv_smooth.assign(stored->inv_smooth, stored->inv_smooth + k);
  } else {  // from the float32 tensor (a smoothed weight's is already w: not smoothed again)
    packed->own.resize(size_t(rows * cols));
    packed->scales.resize(size_t(n));
    quantize_int8_per_channel(static_cast<const float*>(data), rows, cols, axis, packed->own.data(),
                              packed->scales.data());
    qdata = packed->own.data();
  }
  packed->zp_sum.assign(size_t(n), 0.0f);
  const std::vector<int32_t> sums = channel_sums(qdata, k, n, p_.b_transposed);
  for (int64_t j = 0; j < n; ++j)
    packed->zp_sum[size_t(j)] = float(sums[size_t(j)]) * packed->scales[size_t(j)];
  return qdata;
}

std::string Int8Gemm::pack_key(const QuantizedWeight* stored, const memory::desc& layout) const {
  // oneDNN's version, the CPU's ISA and both layouts; which way B is read; and, for int8
  // storage, its scales and smoothing factors (stored beside the int8 bytes, which are what
  // the layout cache's per-tensor hash covers). "v1": the entry's format (pack_b).
  const memory::desc user({p_.k, p_.n}, dt::s8,
                          p_.b_transposed ? memory::dims{1, p_.k} : memory::dims{p_.n, 1});
  std::string how = onednn_pack_key(user, layout) + "int8 B v1";
  if (stored) {
    uint64_t h[2] = {XXH3_64bits(stored->scales, sizeof(float) * size_t(p_.n)), 0};
    if (stored->inv_smooth) h[1] = XXH3_64bits(stored->inv_smooth, sizeof(float) * size_t(p_.k));
    how.append(reinterpret_cast<const char*>(h), sizeof(h));
  }
  return how;
}

dnnl::matmul::primitive_desc Int8Gemm::make_pd(const KernelCall& call,
                                               const std::vector<float>& scales) {
  const memory::dim m = p_.m, k = p_.k, n = p_.n;
  // Only B's fixed per-channel scales: each row's scale, zero point, the bias and the
  // activation are applied after (finish_rows). A per-row scale as a post-op, or runtime
  // output scales, would send oneDNN 2.6 to its reference int8 kernel (~100x slower).
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_output_scales(1 << 1, scales);  // per output channel
  return dnnl::matmul::primitive_desc(
      dnnl::matmul::desc(memory::desc({m, k}, dt::u8, memory::dims{k, 1}),
                         memory::desc({k, n}, dt::s8, memory::format_tag::any),
                         memory::desc({m, n}, dt::f32, memory::dims{n, 1})),
      attr, onednn_engine(call));
}

Status Int8Gemm::use_b(const KernelCall& call, const void* data) {
  if (gemv_) {
    TIR_ASSIGN_OR_RETURN(packed_, pack_b(call, data, memory::desc()));
    packed_from_ = b_identity(call, p_);
    return ok_status();
  }
  // The layout oneDNN wants B in does not depend on the scales' values: learn it from a
  // primitive description with placeholder scales, pack, then make the real one.
  const memory::desc layout = make_pd(call, std::vector<float>(size_t(p_.n), 1.0f)).weights_desc();
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<PackedB> packed, pack_b(call, data, layout));
  if (!packed_ || packed->scales != packed_->scales || !prim_) {
    pd_ = make_pd(call, packed->scales);
    prim_ = dnnl::matmul(pd_);
  }
  packed_ = std::move(packed);
  packed_from_ = b_identity(call, p_);
  return ok_status();
}

Status Int8Gemm::build(const KernelCall& call, const GemmParams& p, size_t* scratch) {
  p_ = p;
  packed_.reset();
  prim_ = {};
  act_.clear();
  dnnl::engine& eng = onednn_engine(call);
  const memory::dim m = p.m, k = p.k;
  bias_ = p.c_input >= 0 && p.beta != 0.0;
  gemv_ = false;
#if defined(__AVX2__)
  gemv_ = p.m == 1 && p.b_transposed;
#endif
  TIR_RETURN_IF_ERROR(use_b(call, call.inputs[p.b_input].data));
  const memory::desc dst_md({m, p.n}, dt::f32, memory::dims{p.n, 1});
  dst_ = memory(dst_md, eng, DNNL_MEMORY_NONE);
  if (!gemv_) {
    src_ = memory(pd_.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(pd_.weights_desc(), eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd_.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
  }
  // An activation other than relu runs as oneDNN eltwise primitives in place on the output
  // (after the rows are finished); relu is applied in finish_rows (NaN kept).
  dnnl::post_ops ops;
  onednn_append_activation(ops, call.epilogue);
  for (int i = 0; i < ops.len(); ++i) {
    float scale, alpha, beta;
    dnnl::algorithm alg;
    ops.get_params_eltwise(i, scale, alg, alpha, beta);
    act_.emplace_back(dnnl::eltwise_forward::primitive_desc(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, dst_md, alpha, beta),
        eng));
  }
  act_args_ = {{DNNL_ARG_SRC, dst_.get()}, {DNNL_ARG_DST, dst_.get()}};
  size_t end = align64(gemv_ ? *scratch : std::max(*scratch, pd_.scratchpad_desc().get_size()));
  a_offset_ = end;
  end += align64(size_t(m * k));
  params_offset_ = end;  // per row: scale (float), zero point (int32)
  *scratch = end + align64(size_t(m) * 8);
  return ok_status();
}

void Int8Gemm::gemv(const uint8_t* qa, float* out) const {
  const int64_t k = p_.k;
  const bool a7 = int8_pairs_saturate();  // A was quantized to 0..127
  const int8_t* b = packed_->plain;
  const float* scales = packed_->scales.data();
  const CpuIsa isa = cpu_isa();
  parallel_chunks(
      p_.n, std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(k, 1)),
      [&](int64_t begin, int64_t end) { int8_gemv(qa, b, k, begin, end, scales, a7, isa, out); });
}

void Int8Gemm::finish_rows(const KernelCall& call, const float* row_scale, const int32_t* row_zp,
                           float* out) const {
  const int64_t n = p_.n;
  const float* zp_sum = packed_->zp_sum.data();
  const float* bias = bias_ ? call.inputs[p_.c_input].data_as<const float>() : nullptr;
  const bool bias_per_col = bias_ && p_.c_col_stride != 0;
  const bool relu = call.epilogue == ops::UnaryKind::kRelu;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  parallel_chunks(p_.m, std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(n, 1)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) {
                      float* y = out + i * n;
                      const float s = row_scale[i], sz = s * float(row_zp[i]);
                      if (std::isnan(s)) {  // the row of A holds NaN or infinity
                        std::fill(y, y + n, nan);
                        continue;
                      }
                      // Branch-free inner loops (vectorized): scale, zero point, bias, relu.
                      if (bias_per_col) {
                        for (int64_t j = 0; j < n; ++j) y[j] = s * y[j] - sz * zp_sum[j] + bias[j];
                      } else {
                        const float b = bias ? bias[0] : 0.f;
                        for (int64_t j = 0; j < n; ++j) y[j] = s * y[j] - sz * zp_sum[j] + b;
                      }
                      if (relu)
                        for (int64_t j = 0; j < n; ++j) y[j] = y[j] < 0.f ? 0.f : y[j];
                    }
                  });
}

Status Int8Gemm::run(const KernelCall& call, void* scratch) {
  const float* a = call.inputs[p_.a_input].data_as<const float>();
  float* out = call.outputs[0].data_as<float>();
  if (b_identity(call, p_) != packed_from_)  // the weights were swapped since prepare
    TIR_RETURN_IF_ERROR(
        onednn_guard(call, [&] { return use_b(call, call.inputs[p_.b_input].data); }));
  char* base = static_cast<char*>(scratch);
  auto* qa = reinterpret_cast<uint8_t*>(base + a_offset_);
  auto* row_scale = reinterpret_cast<float*>(base + params_offset_);
  auto* row_zp = reinterpret_cast<int32_t*>(row_scale + p_.m);
  const int64_t k = p_.k;
  const float alpha = float(p_.alpha);
  // A smoothed weight (SmoothQuant) holds q of w * s: A is multiplied by 1/s as it is
  // quantized (in the same two passes over the row).
  const float* smooth = packed_->inv_smooth.empty() ? nullptr : packed_->inv_smooth.data();
  const auto range = smooth ? finite_range<true> : finite_range<false>;
  const auto quantize = smooth ? quantize_u8<true> : quantize_u8<false>;
  // 255 levels where the CPU's u8 x s8 dot product is exact, else 127 (no pair saturates).
  const int32_t levels = int8_pairs_saturate() ? 127 : 255;
  // Each row of A gets its own scale and zero point (dynamic per-token quantization).
  parallel_chunks(p_.m, std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(k, 1)),
                  [&](int64_t begin, int64_t end) {
                    for (int64_t i = begin; i < end; ++i) {
                      float lo, hi;
                      if (!range(a + i * k, smooth, k, &lo, &hi)) {
                        row_scale[i] = std::numeric_limits<float>::quiet_NaN();
                        row_zp[i] = 0;
                        std::memset(qa + i * k, 0, size_t(k));
                        continue;
                      }
                      const float scale = hi > lo ? (hi - lo) / float(levels) : 1.0f;
                      const int32_t zp =
                          std::clamp(int32_t(std::nearbyint(-lo / scale)), 0, levels);
                      quantize(a + i * k, smooth, k, 1.0f / scale, zp, uint8_t(levels), qa + i * k);
                      row_scale[i] = scale * alpha;
                      row_zp[i] = zp;
                    }
                  });
  return onednn_guard(call, [&] {
    if (gemv_) {
      gemv(qa, out);
    } else {
      src_.set_data_handle(qa);
      wei_.set_data_handle(packed_->weights.get_data_handle());
      dst_.set_data_handle(out);
      scratchpad_.set_data_handle(scratch);
      TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
    }
    dst_.set_data_handle(out);
    finish_rows(call, row_scale, row_zp, out);
    for (const dnnl::eltwise_forward& act : act_)
      TIR_RETURN_IF_ERROR(onednn_execute(call, act, act_args_));
    return ok_status();
  });
}

}  // namespace tir::kernels
