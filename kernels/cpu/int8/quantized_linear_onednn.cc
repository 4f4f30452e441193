// oneDNN kernel of tir::quantized_linear (arguments:
// kernels/shapes/quantization/quantized_linear.h; runtime/passes/quant_rewrite.h makes the node
// from a PT2E-quantized linear). With zero weight zero points it runs oneDNN's int8 matmul: int32
// accumulation of (q_x - zp_x) * q_w, output scale s_x * s_w[n] fixed in the primitive (per-channel
// output scales keep oneDNN's AMX/VNNI brgemm, see gemm_int8.h), bias a binary-add post-op.
// Torch's reference computes the same sums in float32 on dequantized operands: the two differ only
// by float32 rounding of the accumulation (the integer products are exact). Where the CPU's u8 x s8
// dot product saturates (no AVX512-VNNI: onednn_context.h int8_pairs_saturate) int8 would not be
// exact, and the activation's quantization is the model's, not ours to narrow: there the kernel
// computes in float32, (q_x - zp_x) @ (q_w * s_x * s_w[n]) + bias, as torch's reference does (and
// int8 is no faster than float32 on those CPUs). Weights with nonzero zero points, or whose bytes
// are unknown at prepare (a streaming weight source), run the reference loop
// (reference/quantization/quantized_linear.h) instead.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/register.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/quantization/quantized_linear.h"

namespace tir::kernels {
namespace {

using dnnl::memory;
using dt = memory::data_type;

class QuantizedLinear final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, quantized_linear_prepare(call));
    const Tensor& w = call.inputs[p_.weight];
    const Tensor& s = call.inputs[p_.scales];
    const Tensor* z = p_.zero_points >= 0 ? &call.inputs[p_.zero_points] : nullptr;
    // oneDNN when the weight's bytes are known now and its zero points are all 0
    bool zero_zp = w.data && s.data && (!z || z->data);
    if (zero_zp && z) {
      const int64_t* zp = z->data_as<const int64_t>();
      zero_zp = std::all_of(zp, zp + p_.n, [](int64_t v) { return v == 0; });
    }
    onednn_ = zero_zp && p_.m > 0 && p_.n > 0 && p_.k > 0;
    if (!onednn_) {
      out_info->scratch_bytes = size_t(p_.k) * sizeof(float);
      return ok_status();
    }
    return onednn_guard(call, [&] { return build(call, w, s, out_info); });
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (!onednn_) {
      ref_quantized_linear(p_, call, static_cast<float*>(scratch));
      return ok_status();
    }
    const Tensor& w = call.inputs[p_.weight];
    return onednn_guard(call, [&] {
      if (w.data != packed_from_) TIR_RETURN_IF_ERROR(pack(call, w));  // weights swapped
      char* base = static_cast<char*>(scratch);
      auto* zp = reinterpret_cast<int32_t*>(base + zp_offset_);
      *zp = int32_t(p_.x_zero_point);
      if (float_) {
        auto* x = reinterpret_cast<float*>(base + x_offset_);
        dequantize_input(call.inputs[p_.input], x);
        src_.set_data_handle(x);
      } else {
        src_.set_data_handle(call.inputs[p_.input].data);
      }
      wei_.set_data_handle(packed_.get_data_handle());
      dst_.set_data_handle(call.outputs[0].data);
      zero_point_.set_data_handle(zp);
      scratchpad_.set_data_handle(scratch);
      if (p_.bias >= 0) bias_.set_data_handle(call.inputs[p_.bias].data);
      return onednn_execute(call, prim_, args_);
    });
  }

 private:
  Status build(const KernelCall& call, const Tensor& w, const Tensor& s, PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine(call);
    float_ = int8_pairs_saturate();
    scales_.resize(static_cast<size_t>(p_.n));
    const float sx = float(p_.x_scale);
    for (int64_t n = 0; n < p_.n; ++n)
      scales_[n] = sx * (s.dtype == DType::kFloat64 ? float(s.data_as<const double>()[n])
                                                    : s.data_as<const float>()[n]);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!float_) {  // the float32 path has the scales in its packed weights, zp in its input
      attr.set_output_scales(1 << 1, scales_);
      attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    }
    const dt src_type = float_ ? dt::f32 : p_.signed_input ? dt::s8 : dt::u8;
    const memory::desc bias_desc({1, p_.n}, dt::f32, memory::dims{p_.n, 1});
    if (p_.bias >= 0) {
      dnnl::post_ops ops;
      ops.append_binary(dnnl::algorithm::binary_add, bias_desc);
      attr.set_post_ops(ops);
    }
    const dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(
            memory::desc({p_.m, p_.k}, src_type, memory::dims{p_.k, 1}),
            memory::desc({p_.k, p_.n}, float_ ? dt::f32 : dt::s8, memory::format_tag::any),
            memory::desc({p_.m, p_.n}, dt::f32, memory::dims{p_.n, 1})),
        attr, eng);
    prim_ = dnnl::matmul(pd);
    wei_desc_ = pd.weights_desc();
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(wei_desc_, eng, DNNL_MEMORY_NONE);
    dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    zero_point_ = memory({{1}, dt::s32, memory::dims{1}}, eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    bias_ = memory(bias_desc, eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    if (!float_) args_.push_back({DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point_.get()});
    if (p_.bias >= 0)
      args_.push_back({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, bias_.get()});
    zp_offset_ = align64(pd.scratchpad_desc().get_size());
    x_offset_ = zp_offset_ + 64;
    out_info->scratch_bytes = x_offset_ + (float_ ? size_t(p_.m * p_.k) * sizeof(float) : 0);
    return pack(call, w);
  }

  /// The int8 [N, K] weight, read as B = W^T [K, N], reordered into the primitive's layout
  /// (the float32 path: q_w * s_x * s_w[n], exact products but for that one rounding).
  Status pack(const KernelCall& call, const Tensor& w) {
    dnnl::engine& eng = onednn_engine(call);
    memory from(memory::desc({p_.k, p_.n}, dt::s8, memory::dims{1, p_.k}), eng, w.data);
    packed_ = memory(wei_desc_, eng);
    dnnl::primitive_attr attr;
    if (float_) attr.set_output_scales(1 << 1, scales_);
    dnnl::reorder reorder(
        dnnl::reorder::primitive_desc(eng, from.get_desc(), eng, wei_desc_, attr));
    const dnnl_exec_arg_t args[] = {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, packed_.get()}};
    TIR_RETURN_IF_ERROR(onednn_execute(call, reorder, args));
    packed_from_ = w.data;
    return ok_status();
  }

  /// x[i] = q_x[i] - zp_x as float32 (exact: |x| <= 510), the float32 path's input.
  void dequantize_input(const Tensor& in, float* x) const {
    const int64_t count = p_.m * p_.k;
    const float zp = float(p_.x_zero_point);
    if (p_.signed_input) {
      const int8_t* q = in.data_as<const int8_t>();
      for (int64_t i = 0; i < count; ++i) x[i] = float(q[i]) - zp;
    } else {
      const uint8_t* q = in.data_as<const uint8_t>();
      for (int64_t i = 0; i < count; ++i) x[i] = float(q[i]) - zp;
    }
  }

  QuantizedLinearParams p_;
  bool onednn_ = false;
  bool float_ = false;         // int8_pairs_saturate(): computes in float32
  std::vector<float> scales_;  // s_x * s_w[n]
  dnnl::matmul prim_;
  memory::desc wei_desc_;
  memory src_, wei_, dst_, zero_point_, scratchpad_, bias_, packed_;
  std::vector<dnnl_exec_arg_t> args_;
  const void* packed_from_ = nullptr;
  size_t zp_offset_ = 0, x_offset_ = 0;  // in the scratch: zp_x; the float32 path's input
};

}  // namespace

void register_quantized_linear_onednn(KernelRegistry& registry) {
  registry.add({
      {"tir::quantized_linear", DeviceType::kCpu, DType::kUndefined, KernelImpl::kOptimized,
       &make_kernel<QuantizedLinear>},
  });
}
}  // namespace tir::kernels
