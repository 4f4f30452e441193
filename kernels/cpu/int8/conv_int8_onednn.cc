#include "kernels/cpu/int8/conv_int8_onednn.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "core/quantize.h"
#include "kernels/cpu/int8/value_range.h"
#include "kernels/cpu/onednn/onednn_epilogue.h"
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
  r.finite = finite_range<false>(x, nullptr, count, &r.lo, &r.hi);
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

dnnl::convolution_forward::primitive_desc Int8Conv::make_pd(const KernelCall& call,
                                                            dt src_type) const {
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
  attr.set_output_scales(1 << 1, scales_);  // per output channel, fixed
  if (narrow_) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  dnnl::post_ops ops;
  ops.append_binary(dnnl::algorithm::binary_mul, onednn_plain_f32({1, 1, 1, 1}));
  ops.append_binary(dnnl::algorithm::binary_add, onednn_plain_f32({1, p_.oc, 1, 1}));
  if (call.residual >= 0) ops.append_sum(1.f);
  onednn_append_activation(ops, call.epilogue);
  attr.set_post_ops(ops);
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      any(src_dims, src_type), any(wei_dims, dt::s8), memory::desc(), any(dst_dims, dt::f32),
      {p_.stride[0], p_.stride[1]}, {p_.dil[0] - 1, p_.dil[1] - 1}, {p_.pad[0], p_.pad[1]},
      {p_.pad[0], p_.pad[1]});
  return {desc, attr, onednn_engine(call)};
}

bool Int8Conv::quantize_weights(const KernelCall& call) {
  const int64_t oc = p_.oc, per_oc = (p_.c / p_.groups) * p_.kh * p_.kw;
  std::vector<float> scales(static_cast<size_t>(oc));
  const QuantizedWeight* stored = call.input_quantization(p_.weight);
  if (stored && !stored->int4() && stored->rows == oc && stored->cols == per_oc &&
      stored->axis == 0) {
    qdata_ = stored->data;
    std::vector<int8_t>().swap(q_);
    scales.assign(stored->scales, stored->scales + oc);
  } else {
    q_.resize(size_t(oc * per_oc));
    quantize_int8_per_channel(call.inputs[p_.weight].data_as<const float>(), oc, per_oc, 0,
                              q_.data(), scales.data());
    qdata_ = q_.data();
  }
  const float* b = p_.bias >= 0 ? call.inputs[p_.bias].data_as<const float>() : nullptr;
  bias_.resize(size_t(oc));
  for (int64_t c = 0; c < oc; ++c) {
    const ChannelAffine norm = conv_batch_norm_channel(call, c);
    scales[size_t(c)] = static_cast<float>(scales[size_t(c)] * norm.scale);
    bias_[size_t(c)] = static_cast<float>((b ? b[c] : 0.0) * norm.scale + norm.shift);
  }
  quantized_from_ = sources(call);
  const bool changed = scales != scales_;
  scales_ = std::move(scales);
  return changed;
}

size_t Int8Conv::describe(const KernelCall& call, Path& path, dt src_type) {
  dnnl::engine& eng = onednn_engine(call);
  path.pd = make_pd(call, src_type);
  path.prim = {};
  path.packed = {};
  path.packed_from = {};
  const memory::dims src_dims{p_.n, p_.c, p_.h, p_.w};
  const memory::dims dst_dims{p_.n, p_.oc, p_.oh, p_.ow};
  const memory::desc src_user = onednn_activation_f32(call.inputs[p_.input], src_dims);
  const memory::desc dst_user = onednn_activation_f32(call.outputs[0], dst_dims);
  const dnnl::convolution_forward::primitive_desc& pd = path.pd;
  path.user_src = memory(src_user, eng, DNNL_MEMORY_NONE);
  path.src = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
  path.dst = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
  path.user_dst = memory(dst_user, eng, DNNL_MEMORY_NONE);
  path.scratchpad = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
  // f32 input -> u8/s8 in the primitive's layout: round_half_even(x * (1 / scale) [+ zp]),
  // saturated (oneDNN adds the zero point before rounding).
  dnnl::primitive_attr qattr;
  qattr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
  if (narrow_) qattr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
  path.quantize =
      dnnl::reorder(dnnl::reorder::primitive_desc(eng, src_user, eng, pd.src_desc(), qattr));
  path.quantize_args = {arg(DNNL_ARG_FROM, path.user_src), arg(DNNL_ARG_TO, path.src),
                        arg(DNNL_ARG_ATTR_OUTPUT_SCALES, src_scale_)};
  if (narrow_) path.quantize_args.push_back(arg(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, src_zp_));
  size_t off = align64(pd.scratchpad_desc().get_size());
  path.src_off = off;
  off += align64(pd.src_desc().get_size());
  path.dst_reorder = {};
  path.res_reorder = {};
  if (pd.dst_desc() != dst_user) {
    path.dst_reorder = dnnl::reorder(path.dst, path.user_dst);
    path.dst_args = {arg(DNNL_ARG_FROM, path.dst), arg(DNNL_ARG_TO, path.user_dst)};
    path.dst_off = off;
    off += align64(pd.dst_desc().get_size());
  }
  if (call.residual >= 0) {  // into dst's layout unless it is there already (then a copy)
    const memory::desc res_md = onednn_activation_f32(call.inputs[call.residual], dst_dims);
    if (res_md != pd.dst_desc()) {
      path.user_res = memory(res_md, eng, DNNL_MEMORY_NONE);
      path.res_reorder = dnnl::reorder(path.user_res, path.dst);
      path.res_args = {arg(DNNL_ARG_FROM, path.user_res), arg(DNNL_ARG_TO, path.dst)};
    }
  }
  path.args = {arg(DNNL_ARG_SRC, path.src),  // the weights: ready() adds them
               arg(DNNL_ARG_DST, path.dst), arg(DNNL_ARG_SCRATCHPAD, path.scratchpad),
               arg(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, act_scale_),
               arg(DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1, bias_mem_)};
  if (narrow_) path.args.push_back(arg(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, src_zp_));
  return off;
}

Status Int8Conv::ready(const KernelCall& call, Path& path) {
  if (!path.prim) path.prim = dnnl::convolution_forward(path.pd);
  if (path.packed_from == quantized_from_) return ok_status();
  dnnl::engine& eng = onednn_engine(call);
  const memory::dims wei_dims =
      p_.groups > 1 ? memory::dims{p_.groups, p_.oc / p_.groups, p_.c / p_.groups, p_.kh, p_.kw}
                    : memory::dims{p_.oc, p_.c, p_.kh, p_.kw};
  const memory::desc plain(wei_dims, dt::s8,
                           p_.groups > 1 ? memory::format_tag::goihw : memory::format_tag::oihw);
  memory from(plain, eng, const_cast<int8_t*>(qdata_));
  if (!path.packed) {
    path.packed = memory(path.pd.weights_desc(), eng);
    path.args.push_back(arg(DNNL_ARG_WEIGHTS, path.packed));
  }
  const dnnl::reorder pack(from, path.packed);
  const dnnl_exec_arg_t pack_args[] = {arg(DNNL_ARG_FROM, from), arg(DNNL_ARG_TO, path.packed)};
  TIR_RETURN_IF_ERROR(onednn_execute(call, pack, pack_args));
  path.packed_from = quantized_from_;
  return ok_status();
}

Status Int8Conv::build(const KernelCall& call, const ConvParams& p, PrepareInfo* out_info) {
  p_ = p;
  scales_.clear();
  quantize_weights(call);
  narrow_ = int8_pairs_saturate();
  dnnl::engine& eng = onednn_engine(call);
  src_scale_ = memory(onednn_plain_f32({1}), eng);
  src_zp_ = memory({{1}, dt::s32, memory::dims{1}}, eng);
  act_scale_ = memory(onednn_plain_f32({1, 1, 1, 1}), eng);
  bias_mem_ = memory(onednn_plain_f32({1, p_.oc, 1, 1}), eng, DNNL_MEMORY_NONE);
  // Without an exact u8 x s8 dot product (int8_pairs_saturate) every input takes the uint8
  // path: oneDNN's int8 source there halves the weights to avoid saturation (a bit lost).
  paths_[0] = Path{};
  const size_t scratch =
      narrow_ ? describe(call, paths_[1], dt::u8)
              : std::max(describe(call, paths_[0], dt::s8), describe(call, paths_[1], dt::u8));
  // Depthwise / grouped convs, and dot products shorter than 64 (C/groups * KH * KW), are
  // memory-bound: quantizing the input costs more than int8 saves (MobileNetV3; the note).
  fast_ = p_.groups == 1 && p_.c * p_.kh * p_.kw >= 64;
  for (const Path& path : paths_)
    if (path.pd) fast_ &= std::string_view(path.pd.impl_info_str()).substr(0, 3) != "ref";
  if (!fast_) {
    std::vector<int8_t>().swap(q_);
    return ok_status();
  }
  // The uint8 path now (most convolutions read a relu's output); int8 when first needed.
  TIR_RETURN_IF_ERROR(ready(call, paths_[1]));
  out_info->scratch_bytes = scratch;
  // run reads only the quantized weights and the folded bias while these pointers stay
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
    if (sources(call) != quantized_from_ && quantize_weights(call))  // swapped: new scales
      for (Path& path : paths_) {
        if (!path.pd) continue;  // the int8 path where it is never used (narrow_)
        path.pd = make_pd(call, path.pd.src_desc().data_type());
        path.prim = {};
      }
    const bool u8 = narrow_ || r.lo >= 0;
    Path& path = paths_[u8 ? 1 : 0];
    TIR_RETURN_IF_ERROR(ready(call, path));
    float scale;
    if (narrow_) {  // asymmetric 0..127 over [lo, hi]: no u8 x s8 pair can saturate
      scale = r.hi > r.lo ? (r.hi - r.lo) / 127.0f : 1.0f;
      *static_cast<int32_t*>(src_zp_.get_data_handle()) =
          std::clamp(int32_t(std::nearbyint(-r.lo / scale)), 0, 127);
    } else {
      const float amax = std::max(-r.lo, r.hi);
      scale = amax > 0 ? amax / (u8 ? 255.0f : 127.0f) : 1.0f;
    }
    *static_cast<float*>(src_scale_.get_data_handle()) = 1.0f / scale;
    *static_cast<float*>(act_scale_.get_data_handle()) = scale;
    char* s = static_cast<char*>(scratch);
    path.user_src.set_data_handle(x.data);
    path.src.set_data_handle(s + path.src_off);
    TIR_RETURN_IF_ERROR(onednn_execute(call, path.quantize, path.quantize_args));
    bias_mem_.set_data_handle(bias_.data());
    path.scratchpad.set_data_handle(s);
    path.user_dst.set_data_handle(call.outputs[0].data);
    path.dst.set_data_handle(path.dst_reorder ? s + path.dst_off : call.outputs[0].data);
    if (call.residual >= 0) {  // the sum post-op adds the convolution onto dst
      const Tensor& res = call.inputs[call.residual];
      if (path.res_reorder) {
        path.user_res.set_data_handle(res.data);
        TIR_RETURN_IF_ERROR(onednn_execute(call, path.res_reorder, path.res_args));
      } else if (void* to = path.dst.get_data_handle(); res.data != to) {
        std::memcpy(to, res.data, res.nbytes());  // already in dst's layout
      }
    }
    TIR_RETURN_IF_ERROR(onednn_execute(call, path.prim, path.args));
    if (path.dst_reorder)
      TIR_RETURN_IF_ERROR(onednn_execute(call, path.dst_reorder, path.dst_args));
    onednn_finish_activation(call.epilogue, call.outputs[0]);
    return ok_status();
  });
}

}  // namespace tir::kernels
