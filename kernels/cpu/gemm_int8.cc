#include "kernels/cpu/gemm_int8.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/quantize.h"
#include "kernels/cpu/onednn_epilogue.h"
#include "kernels/packed_cache.h"

namespace tir::kernels {

using dnnl::memory;
using dt = memory::data_type;

struct Int8Gemm::PackedB {
  memory weights;             // int8, pd.weights_desc()
  std::vector<float> scales;  // per output channel (n)
};

namespace {

/// min and max of x[0, count) and whether every value is finite.
bool finite_range(const float* x, int64_t count, float* lo, float* hi) {
  float mn = 0, mx = 0;  // the range always holds 0, so zero stays exact
  int64_t i = 0;
  bool nan = false;
#if defined(__AVX2__)
  __m256 vmn = _mm256_setzero_ps(), vmx = _mm256_setzero_ps(), vnan = _mm256_setzero_ps();
  for (; i + 8 <= count; i += 8) {
    const __m256 v = _mm256_loadu_ps(x + i);
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
    nan |= std::isnan(x[i]);
    mn = std::min(mn, x[i]);
    mx = std::max(mx, x[i]);
  }
  *lo = mn;
  *hi = mx;
  return !nan && std::isfinite(mn) && std::isfinite(mx);
}

/// q[i] = clamp(round_half_even(x[i] * inv) + zp, 0, 255).
void quantize_u8(const float* x, int64_t count, float inv, int32_t zp, uint8_t* q) {
  int64_t i = 0;
#if defined(__AVX2__)
  const __m256 vinv = _mm256_set1_ps(inv);
  const __m256i vzp = _mm256_set1_epi32(zp);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (; i + 32 <= count; i += 32) {
    __m256i r[4];
    for (int k = 0; k < 4; ++k)  // cvtps rounds half to even (the default MXCSR mode)
      r[k] = _mm256_add_epi32(
          _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(x + i + 8 * k), vinv)), vzp);
    const __m256i w01 = _mm256_packs_epi32(r[0], r[1]), w23 = _mm256_packs_epi32(r[2], r[3]);
    const __m256i b = _mm256_packus_epi16(w01, w23);  // saturates to [0, 255]
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + i), _mm256_permutevar8x32_epi32(b, order));
  }
#endif
  for (; i < count; ++i) {
    const float r = std::nearbyint(x[i] * inv) + float(zp);
    q[i] = static_cast<uint8_t>(std::clamp(r, 0.0f, 255.0f));
  }
}

}  // namespace

bool Int8Gemm::wanted(const KernelCall& call, const GemmParams& p) {
  if (call.inputs[p.b_input].data == nullptr) return false;  // B is an activation
  if (call.precision != Precision::kInt8 && call.input_quantization(p.b_input) == nullptr)
    return false;
  return p.c_input < 0 || p.beta == 0.0 || (p.beta == 1.0 && p.c_row_stride == 0);
}

Result<std::shared_ptr<Int8Gemm::PackedB>> Int8Gemm::pack_b(const KernelCall& call,
                                                            const void* data,
                                                            const memory::desc& layout) {
  const int64_t k = p_.k, n = p_.n;
  // Rows and columns of B as stored: linear's [N, K] has its channels on rows (axis 0).
  const int64_t rows = p_.b_transposed ? n : k, cols = p_.b_transposed ? k : n;
  const int axis = p_.b_transposed ? 0 : 1;
  const auto make = [&]() -> Result<std::shared_ptr<void>> {
    auto packed = std::make_shared<PackedB>();
    const QuantizedWeight* stored = call.input_quantization(p_.b_input);
    std::vector<int8_t> q;
    const int8_t* qdata = nullptr;
    if (stored && stored->rows == rows && stored->cols == cols && stored->axis == axis) {
      qdata = stored->data;
      packed->scales.assign(stored->scales, stored->scales + n);
    } else {
      q.resize(size_t(rows * cols));
      packed->scales.resize(size_t(n));
      quantize_int8_per_channel(static_cast<const float*>(data), rows, cols, axis, q.data(),
                                packed->scales.data());
      qdata = q.data();
    }
    dnnl::engine& eng = onednn_engine(call);
    const memory::desc user({k, n}, dt::s8,
                            p_.b_transposed ? memory::dims{1, k} : memory::dims{n, 1});
    memory from(user, eng, const_cast<int8_t*>(qdata));
    packed->weights = memory(layout, eng);
    dnnl::reorder reorder(from, packed->weights);
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from.get()},
                                    {DNNL_ARG_TO, packed->weights.get()}};
    TIR_RETURN_IF_ERROR(onednn_execute(call, reorder, args));
    return std::shared_ptr<void>(std::move(packed));
  };
  std::shared_ptr<void> made;
  const WeightKey key = call.input_key(p_.b_input);
  if (call.packed_cache == nullptr || !key.valid()) {
    TIR_ASSIGN_OR_RETURN(made, make());
  } else {  // keyed by the packed layout and which way B is read
    const dnnl_memory_desc_t& to = layout.data;
    std::string how = p_.b_transposed ? "int8 B^T " : "int8 B ";
    how.append(reinterpret_cast<const char*>(&to), sizeof(to));
    TIR_ASSIGN_OR_RETURN(made, call.packed_cache->get(key, how, make));
  }
  return std::static_pointer_cast<PackedB>(made);
}

dnnl::matmul::primitive_desc Int8Gemm::make_pd(const KernelCall& call,
                                               const std::vector<float>& scales) {
  const memory::dim m = p_.m, k = p_.k, n = p_.n;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_output_scales(1 << 1, scales);  // per output channel
  attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  dnnl::post_ops ops;
  ops.append_binary(dnnl::algorithm::binary_mul, a_scale_.get_desc());  // A's scale * alpha
  if (bias_) ops.append_binary(dnnl::algorithm::binary_add, bias_mem_.get_desc());
  onednn_append_activation(ops, call.epilogue);
  attr.set_post_ops(ops);
  return dnnl::matmul::primitive_desc(
      dnnl::matmul::desc(memory::desc({m, k}, dt::u8, memory::dims{k, 1}),
                         memory::desc({k, n}, dt::s8, memory::format_tag::any),
                         memory::desc({m, n}, dt::f32, memory::dims{n, 1})),
      attr, onednn_engine(call));
}

Status Int8Gemm::use_b(const KernelCall& call, const void* data) {
  // The layout oneDNN wants B in does not depend on the scales' values: learn it from a
  // primitive description with placeholder scales, pack, then make the real one.
  const memory::desc layout = make_pd(call, std::vector<float>(size_t(p_.n), 1.0f)).weights_desc();
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<PackedB> packed, pack_b(call, data, layout));
  if (!packed_ || packed->scales != packed_->scales || !prim_) {
    pd_ = make_pd(call, packed->scales);
    prim_ = dnnl::matmul(pd_);
  }
  packed_ = std::move(packed);
  packed_from_ = data;
  return ok_status();
}

Status Int8Gemm::build(const KernelCall& call, const GemmParams& p, size_t* scratch) {
  p_ = p;
  packed_.reset();
  prim_ = {};
  dnnl::engine& eng = onednn_engine(call);
  const memory::dim m = p.m, k = p.k, n = p.n;
  bias_ = p.c_input >= 0 && p.beta != 0.0;
  const memory::dim bn = p.c_col_stride == 0 ? 1 : n;
  a_scale_ = memory({{1, 1}, dt::f32, memory::dims{1, 1}}, eng, DNNL_MEMORY_NONE);
  bias_mem_ = memory({{1, bn}, dt::f32, memory::dims{bn, 1}}, eng, DNNL_MEMORY_NONE);
  TIR_RETURN_IF_ERROR(use_b(call, call.inputs[p.b_input].data));
  src_ = memory(pd_.src_desc(), eng, DNNL_MEMORY_NONE);
  wei_ = memory(pd_.weights_desc(), eng, DNNL_MEMORY_NONE);
  dst_ = memory(pd_.dst_desc(), eng, DNNL_MEMORY_NONE);
  zero_point_ = memory({{1}, dt::s32, memory::dims{1}}, eng, DNNL_MEMORY_NONE);
  scratchpad_ = memory(pd_.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
  args_ = {{DNNL_ARG_SRC, src_.get()},
           {DNNL_ARG_WEIGHTS, wei_.get()},
           {DNNL_ARG_DST, dst_.get()},
           {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point_.get()},
           {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, a_scale_.get()},
           {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
  if (bias_) args_.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, bias_mem_.get()});
  size_t end = align64(std::max(*scratch, pd_.scratchpad_desc().get_size()));
  a_offset_ = end;
  end += align64(size_t(m * k));
  params_offset_ = end;
  *scratch = end + 64;
  return ok_status();
}

Status Int8Gemm::run(const KernelCall& call, void* scratch) {
  const float* a = call.inputs[p_.a_input].data_as<const float>();
  float* out = call.outputs[0].data_as<float>();
  const void* b = call.inputs[p_.b_input].data;
  if (b != packed_from_)  // the weights were swapped since prepare
    TIR_RETURN_IF_ERROR(onednn_guard(call, [&] { return use_b(call, b); }));
  float lo, hi;
  if (!finite_range(a, p_.m * p_.k, &lo, &hi)) {
    std::fill(out, out + p_.m * p_.n, std::numeric_limits<float>::quiet_NaN());
    return ok_status();
  }
  const float scale = hi > lo ? (hi - lo) / 255.0f : 1.0f;
  const int32_t zp = std::clamp(int32_t(std::nearbyint(-lo / scale)), 0, 255);
  char* base = static_cast<char*>(scratch);
  auto* qa = reinterpret_cast<uint8_t*>(base + a_offset_);
  quantize_u8(a, p_.m * p_.k, 1.0f / scale, zp, qa);
  auto* a_scale = reinterpret_cast<float*>(base + params_offset_);
  *a_scale = scale * float(p_.alpha);
  auto* zp_mem = reinterpret_cast<int32_t*>(base + params_offset_ + 4);
  *zp_mem = zp;
  return onednn_guard(call, [&] {
    src_.set_data_handle(qa);
    wei_.set_data_handle(packed_->weights.get_data_handle());
    dst_.set_data_handle(out);
    a_scale_.set_data_handle(a_scale);
    zero_point_.set_data_handle(zp_mem);
    scratchpad_.set_data_handle(scratch);
    if (bias_) bias_mem_.set_data_handle(const_cast<void*>(call.inputs[p_.c_input].data));
    TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
    onednn_finish_activation(call.epilogue, call.outputs[0]);  // relu: not a post-op
    return ok_status();
  });
}

}  // namespace tir::kernels
