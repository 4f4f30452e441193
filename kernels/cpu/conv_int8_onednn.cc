#include "kernels/cpu/conv_int8_onednn.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/quantize.h"
#include "kernels/cpu/onednn_epilogue.h"
#include "kernels/cpu/parallel.h"

namespace tir::kernels {

using dnnl::memory;
using dt = memory::data_type;

namespace {

/// The range of a chunk of the input; `finite` false when it holds NaN or infinity.
struct Range {
  float lo = 0, hi = 0;  // always holds 0, so zero stays exact
  bool finite = true;
};

Range chunk_range(const float* x, int64_t count) {
  Range r;
  int64_t i = 0;
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
  for (int k = 0; k < 8; ++k) r.lo = std::min(r.lo, a[k]), r.hi = std::max(r.hi, b[k]);
  r.finite = _mm256_movemask_ps(vnan) == 0;
#endif
  for (; i < count; ++i) {
    r.finite &= !std::isnan(x[i]);
    r.lo = std::min(r.lo, x[i]);
    r.hi = std::max(r.hi, x[i]);
  }
  r.finite &= std::isfinite(r.lo) && std::isfinite(r.hi);
  return r;
}

/// The range of x[0, count) over the kernel's threads.
Range tensor_range(const float* x, int64_t count) {
  constexpr int64_t kGrain = int64_t{1} << 16;
  std::vector<Range> parts(size_t(std::max<int64_t>(1, (count + kGrain - 1) / kGrain)));
  parallel_chunks(count, kGrain, [&](int64_t begin, int64_t end) {
    parts[size_t(begin / kGrain)] = chunk_range(x + begin, end - begin);
  });
  Range r;
  for (const Range& p : parts) {
    r.lo = std::min(r.lo, p.lo);
    r.hi = std::max(r.hi, p.hi);
    r.finite &= p.finite;
  }
  return r;
}

/// oneDNN's view of a batched activation as it lies in memory (plain NCHW or channels-last,
/// its strides); an unbatched [C, H, W] one as plain [1, C, H, W].
memory::desc activation_desc(const Tensor& t, const memory::dims& dims) {
  if (t.rank != 4) return onednn_plain_f32(dims);
  return memory::desc(dims, dt::f32, memory::dims(t.strides.begin(), t.strides.begin() + 4));
}

dnnl_exec_arg_t arg(int name, const memory& m) { return {name, m.get()}; }

}  // namespace

bool Int8Conv::wanted(const KernelCall& call, const ConvParams& p) {
  if (call.inputs[p.weight].data == nullptr) return false;  // streamed: float32 path
  if (call.precision != Precision::kInt8 && call.input_quantization(p.weight) == nullptr)
    return false;
  if (p.bias >= 0 && call.inputs[p.bias].data == nullptr) return false;
  const BatchNormFold& bn = call.batch_norm;
  for (int idx : {bn.weight, bn.bias, bn.mean, bn.var})
    if (idx >= 0 && call.inputs[idx].data == nullptr) return false;
  return true;
}

Int8Conv::Sources Int8Conv::sources(const KernelCall& call) const {
  const BatchNormFold& bn = call.batch_norm;
  const auto data = [&](int idx) -> const void* {
    return idx >= 0 ? call.inputs[idx].data : nullptr;
  };
  return {data(p_.weight), data(p_.bias), data(bn.weight),
          data(bn.bias),   data(bn.mean), data(bn.var)};
}

dnnl::convolution_forward::primitive_desc Int8Conv::make_pd(
    const KernelCall& call, const std::vector<float>& scales) const {
  const memory::dims src_dims{p_.n, p_.c, p_.h, p_.w};
  const memory::dims dst_dims{p_.n, p_.oc, p_.oh, p_.ow};
  const memory::dims wei_dims =
      p_.groups > 1 ? memory::dims{p_.groups, p_.oc / p_.groups, p_.c / p_.groups, p_.kh, p_.kw}
                    : memory::dims{p_.oc, p_.c, p_.kh, p_.kw};
  const auto any = [](const memory::dims& d, dt type) {
    return memory::desc(d, type, memory::format_tag::any);
  };
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  attr.set_output_scales(1 << 1, scales);  // per output channel, fixed
  dnnl::post_ops ops;
  ops.append_binary(dnnl::algorithm::binary_mul, onednn_plain_f32({1, 1, 1, 1}));
  ops.append_binary(dnnl::algorithm::binary_add, onednn_plain_f32({1, p_.oc, 1, 1}));
  if (call.residual >= 0) ops.append_sum(1.f);
  onednn_append_activation(ops, call.epilogue);
  attr.set_post_ops(ops);
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      any(src_dims, dt::s8), any(wei_dims, dt::s8), memory::desc(), any(dst_dims, dt::f32),
      {p_.stride[0], p_.stride[1]}, {p_.dil[0] - 1, p_.dil[1] - 1}, {p_.pad[0], p_.pad[1]},
      {p_.pad[0], p_.pad[1]});
  return {desc, attr, onednn_engine(call)};
}

Status Int8Conv::use_weights(const KernelCall& call) {
  const int64_t oc = p_.oc, per_oc = (p_.c / p_.groups) * p_.kh * p_.kw;
  std::vector<float> scales(static_cast<size_t>(oc));
  std::vector<int8_t> q;
  const int8_t* qdata = nullptr;
  const QuantizedWeight* stored = call.input_quantization(p_.weight);
  if (stored && stored->rows == oc && stored->cols == per_oc && stored->axis == 0) {
    qdata = stored->data;
    scales.assign(stored->scales, stored->scales + oc);
  } else {
    q.resize(size_t(oc * per_oc));
    quantize_int8_per_channel(call.inputs[p_.weight].data_as<const float>(), oc, per_oc, 0,
                              q.data(), scales.data());
    qdata = q.data();
  }
  const float* b = p_.bias >= 0 ? call.inputs[p_.bias].data_as<const float>() : nullptr;
  bias_.resize(size_t(oc));
  for (int64_t c = 0; c < oc; ++c) {
    const ChannelAffine norm = conv_batch_norm_channel(call, c);
    scales[size_t(c)] = static_cast<float>(scales[size_t(c)] * norm.scale);
    bias_[size_t(c)] = static_cast<float>((b ? b[c] : 0.0) * norm.scale + norm.shift);
  }
  if (!prim_ || scales != scales_) {
    pd_ = make_pd(call, scales);
    prim_ = dnnl::convolution_forward(pd_);
    scales_ = std::move(scales);
  }
  dnnl::engine& eng = onednn_engine(call);
  const memory::dims wei_dims =
      p_.groups > 1 ? memory::dims{p_.groups, p_.oc / p_.groups, p_.c / p_.groups, p_.kh, p_.kw}
                    : memory::dims{p_.oc, p_.c, p_.kh, p_.kw};
  const memory::desc plain(wei_dims, dt::s8,
                           p_.groups > 1 ? memory::format_tag::goihw : memory::format_tag::oihw);
  memory from(plain, eng, const_cast<int8_t*>(qdata));
  if (!packed_ || packed_.get_desc() != pd_.weights_desc()) packed_ = memory(pd_.weights_desc(), eng);
  const dnnl::reorder pack(from, packed_);
  const dnnl_exec_arg_t pack_args[] = {arg(DNNL_ARG_FROM, from), arg(DNNL_ARG_TO, packed_)};
  TIR_RETURN_IF_ERROR(onednn_execute(call, pack, pack_args));
  packed_from_ = sources(call);
  return ok_status();
}

Status Int8Conv::build(const KernelCall& call, const ConvParams& p, PrepareInfo* out_info) {
  p_ = p;
  prim_ = {};
  packed_ = {};
  TIR_RETURN_IF_ERROR(use_weights(call));
  dnnl::engine& eng = onednn_engine(call);
  const memory::dims src_dims{p_.n, p_.c, p_.h, p_.w};
  const memory::dims dst_dims{p_.n, p_.oc, p_.oh, p_.ow};
  const memory::desc src_user = activation_desc(call.inputs[p_.input], src_dims);
  const memory::desc dst_user = activation_desc(call.outputs[0], dst_dims);
  user_src_ = memory(src_user, eng, DNNL_MEMORY_NONE);
  src_ = memory(pd_.src_desc(), eng, DNNL_MEMORY_NONE);
  wei_ = memory(pd_.weights_desc(), eng, DNNL_MEMORY_NONE);
  dst_ = memory(pd_.dst_desc(), eng, DNNL_MEMORY_NONE);
  user_dst_ = memory(dst_user, eng, DNNL_MEMORY_NONE);
  scratchpad_ = memory(pd_.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
  const memory::desc one_f32 = onednn_plain_f32({1});
  src_scale_ = memory(one_f32, eng);
  act_scale_ = memory(onednn_plain_f32({1, 1, 1, 1}), eng);
  bias_mem_ = memory(onednn_plain_f32({1, p_.oc, 1, 1}), eng, DNNL_MEMORY_NONE);

  // f32 input -> s8 in the primitive's layout: round_half_even(x * (1 / scale)), saturated.
  dnnl::primitive_attr qattr;
  qattr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
  quantize_ = dnnl::reorder(dnnl::reorder::primitive_desc(eng, src_user, eng, pd_.src_desc(), qattr));
  quantize_args_ = {arg(DNNL_ARG_FROM, user_src_), arg(DNNL_ARG_TO, src_),
                    arg(DNNL_ARG_ATTR_OUTPUT_SCALES, src_scale_)};
  size_t off = align64(pd_.scratchpad_desc().get_size());
  src_off_ = off;
  off += align64(pd_.src_desc().get_size());
  dst_reorder_ = {};
  res_reorder_ = {};
  if (pd_.dst_desc() != dst_user) {
    dst_reorder_ = dnnl::reorder(dst_, user_dst_);
    dst_args_ = {arg(DNNL_ARG_FROM, dst_), arg(DNNL_ARG_TO, user_dst_)};
    dst_off_ = off;
    off += align64(pd_.dst_desc().get_size());
  }
  if (call.residual >= 0) {  // into dst's layout unless it is there already (then a copy)
    const memory::desc res_md = activation_desc(call.inputs[call.residual], dst_dims);
    if (res_md != pd_.dst_desc()) {
      user_res_ = memory(res_md, eng, DNNL_MEMORY_NONE);
      res_reorder_ = dnnl::reorder(user_res_, dst_);
      res_args_ = {arg(DNNL_ARG_FROM, user_res_), arg(DNNL_ARG_TO, dst_)};
    }
  }
  args_ = {arg(DNNL_ARG_SRC, src_),
           arg(DNNL_ARG_WEIGHTS, wei_),
           arg(DNNL_ARG_DST, dst_),
           arg(DNNL_ARG_SCRATCHPAD, scratchpad_),
           arg(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, act_scale_),
           arg(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, bias_mem_)};
  out_info->scratch_bytes = off;
  // run reads only the packed weights and the folded bias while these pointers stay
  const BatchNormFold& bn = call.batch_norm;
  for (int idx : {p_.weight, p_.bias, bn.weight, bn.bias, bn.mean, bn.var})
    if (idx >= 0 && idx < 64) out_info->packed_inputs |= uint64_t{1} << idx;
  return ok_status();
}

void Int8Conv::fill_nan(const KernelCall& call) const {
  const Tensor& out = call.outputs[0];
  float* d = out.data_as<float>();
  std::fill(d, d + out.numel(), std::numeric_limits<float>::quiet_NaN());
}

Status Int8Conv::run(const KernelCall& call, void* scratch) {
  const Tensor& x = call.inputs[p_.input];
  const Range r = tensor_range(x.data_as<const float>(), x.numel());
  if (!r.finite) {  // no int8 scale for NaN or infinity
    fill_nan(call);
    return ok_status();
  }
  return onednn_guard(call, [&]() -> Status {
    if (sources(call) != packed_from_) TIR_RETURN_IF_ERROR(use_weights(call));  // swapped
    const float amax = std::max(-r.lo, r.hi);
    const float scale = amax > 0 ? amax / 127.0f : 1.0f;
    *static_cast<float*>(src_scale_.get_data_handle()) = 1.0f / scale;
    *static_cast<float*>(act_scale_.get_data_handle()) = scale;
    char* s = static_cast<char*>(scratch);
    user_src_.set_data_handle(x.data);
    src_.set_data_handle(s + src_off_);
    TIR_RETURN_IF_ERROR(onednn_execute(call, quantize_, quantize_args_));
    wei_.set_data_handle(packed_.get_data_handle());
    bias_mem_.set_data_handle(bias_.data());
    scratchpad_.set_data_handle(s);
    user_dst_.set_data_handle(call.outputs[0].data);
    dst_.set_data_handle(dst_reorder_ ? s + dst_off_ : call.outputs[0].data);
    if (call.residual >= 0) {  // the sum post-op adds the convolution onto dst
      const Tensor& res = call.inputs[call.residual];
      if (res_reorder_) {
        user_res_.set_data_handle(res.data);
        TIR_RETURN_IF_ERROR(onednn_execute(call, res_reorder_, res_args_));
      } else if (void* to = dst_.get_data_handle(); res.data != to) {
        std::memcpy(to, res.data, res.nbytes());  // already in dst's layout
      }
    }
    TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
    if (dst_reorder_) TIR_RETURN_IF_ERROR(onednn_execute(call, dst_reorder_, dst_args_));
    onednn_finish_activation(call.epilogue, call.outputs[0]);
    return ok_status();
  });
}

}  // namespace tir::kernels
