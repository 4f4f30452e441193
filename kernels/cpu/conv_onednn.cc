// Optimized 2-D convolution on oneDNN: aten::conv2d, aten::convolution.
//
// The primitive picks its own (blocked) layouts; NCHW activations are reordered into and
// out of them through the scratch buffer. Weights are reordered once in `prepare` when
// their bytes are already there, keyed by the weight's data pointer: if `run` sees a
// different pointer (weights swapped) it reorders into scratch instead, so results are
// always computed from the current weights.
#include <vector>

#include "kernels/cpu/onednn_context.h"
#include "kernels/cpu/onednn_epilogue.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

using dnnl::memory;

template <Result<ConvParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
class ConvOneDnn final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, Prepare(call, out_info));
    fallback_ = p_.n == 0;
    if (fallback_) return ok_status();
    return onednn_guard(call, [&] { return build(call, out_info); });
  }

  bool accepts_epilogue() const override { return true; }

  Status run(const KernelCall& call, void* scratch) override {
    if (fallback_) {
      ref_conv2d(p_, call, scratch);
      return ok_status();
    }
    return onednn_guard(call, [&]() -> Status {
      char* s = static_cast<char*>(scratch);
      const Tensor& w = call.inputs[p_.weight];
      user_src_.set_data_handle(call.inputs[p_.input].data);
      user_dst_.set_data_handle(call.outputs[0].data);
      user_wei_.set_data_handle(w.data);
      scratchpad_.set_data_handle(s);
      if (src_reorder_) {
        src_.set_data_handle(s + src_off_);
        TIR_RETURN_IF_ERROR(onednn_execute(call, src_reorder_, src_args_));
      } else {
        src_.set_data_handle(call.inputs[p_.input].data);
      }
      if (!wei_reorder_) {
        wei_.set_data_handle(w.data);
      } else if (w.data == packed_from_) {
        wei_.set_data_handle(packed_.get_data_handle());
      } else {
        wei_.set_data_handle(s + wei_off_);
        TIR_RETURN_IF_ERROR(onednn_execute(call, wei_reorder_, wei_args_));
      }
      if (p_.bias >= 0) bias_.set_data_handle(call.inputs[p_.bias].data);
      dst_.set_data_handle(dst_reorder_ ? s + dst_off_ : call.outputs[0].data);
      TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
      if (dst_reorder_) TIR_RETURN_IF_ERROR(onednn_execute(call, dst_reorder_, dst_args_));
      return ok_status();
    });
  }

 private:
  Status build(const KernelCall& call, PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine();
    const memory::dims src_dims{p_.n, p_.c, p_.h, p_.w};
    const memory::dims dst_dims{p_.n, p_.oc, p_.oh, p_.ow};
    const memory::dims wei_dims =
        p_.groups > 1 ? memory::dims{p_.groups, p_.oc / p_.groups, p_.c / p_.groups, p_.kh, p_.kw}
                      : memory::dims{p_.oc, p_.c, p_.kh, p_.kw};
    const auto any = [](const memory::dims& d) {
      return memory::desc(d, memory::data_type::f32, memory::format_tag::any);
    };
    const memory::desc bias_md = p_.bias >= 0 ? onednn_plain_f32({p_.oc}) : memory::desc();
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any(src_dims),
        any(wei_dims), bias_md, any(dst_dims), {p_.stride[0], p_.stride[1]},
        {p_.dil[0] - 1, p_.dil[1] - 1}, {p_.pad[0], p_.pad[1]}, {p_.pad[0], p_.pad[1]});
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (call.epilogue != Activation::kNone) {
      dnnl::post_ops ops;
      onednn_append_activation(ops, call.epilogue);
      attr.set_post_ops(ops);
    }
    const dnnl::convolution_forward::primitive_desc pd(desc, attr, eng);
    prim_ = dnnl::convolution_forward(pd);

    const memory::desc src_plain = onednn_plain_f32(src_dims);
    const memory::desc dst_plain = onednn_plain_f32(dst_dims);
    const memory::desc wei_plain = onednn_plain_f32(wei_dims);
    user_src_ = memory(src_plain, eng, DNNL_MEMORY_NONE);
    user_dst_ = memory(dst_plain, eng, DNNL_MEMORY_NONE);
    user_wei_ = memory(wei_plain, eng, DNNL_MEMORY_NONE);
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(pd.weights_desc(), eng, DNNL_MEMORY_NONE);
    dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);

    size_t off = align64(pd.scratchpad_desc().get_size());
    src_reorder_ = {};
    wei_reorder_ = {};
    dst_reorder_ = {};
    if (pd.src_desc() != src_plain) {
      src_reorder_ = dnnl::reorder(user_src_, src_);
      src_args_ = {{DNNL_ARG_FROM, user_src_.get()}, {DNNL_ARG_TO, src_.get()}};
      src_off_ = off;
      off += align64(pd.src_desc().get_size());
    }
    packed_from_ = nullptr;
    if (pd.weights_desc() != wei_plain) {
      wei_reorder_ = dnnl::reorder(user_wei_, wei_);
      wei_args_ = {{DNNL_ARG_FROM, user_wei_.get()}, {DNNL_ARG_TO, wei_.get()}};
      wei_off_ = off;
      off += align64(pd.weights_desc().get_size());
      const void* wdata = call.inputs[p_.weight].data;
      if (wdata != nullptr) {  // weights known now: pack once
        packed_ = memory(pd.weights_desc(), eng);
        user_wei_.set_data_handle(const_cast<void*>(wdata));
        const dnnl_exec_arg_t pack_args[] = {{DNNL_ARG_FROM, user_wei_.get()},
                                             {DNNL_ARG_TO, packed_.get()}};
        TIR_RETURN_IF_ERROR(onednn_execute(call, wei_reorder_, pack_args));
        packed_from_ = wdata;
      }
    }
    if (pd.dst_desc() != dst_plain) {
      dst_reorder_ = dnnl::reorder(dst_, user_dst_);
      dst_args_ = {{DNNL_ARG_FROM, dst_.get()}, {DNNL_ARG_TO, user_dst_.get()}};
      dst_off_ = off;
      off += align64(pd.dst_desc().get_size());
    }
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    if (p_.bias >= 0) {
      bias_ = memory(bias_md, eng, DNNL_MEMORY_NONE);
      args_.push_back({DNNL_ARG_BIAS, bias_.get()});
    }
    out_info->scratch_bytes = off;
    return ok_status();
  }

  ConvParams p_;
  bool fallback_ = false;
  dnnl::convolution_forward prim_;
  dnnl::reorder src_reorder_, wei_reorder_, dst_reorder_;
  memory user_src_, user_wei_, user_dst_, src_, wei_, dst_, bias_, scratchpad_, packed_;
  const void* packed_from_ = nullptr;
  size_t src_off_ = 0, wei_off_ = 0, dst_off_ = 0;
  std::vector<dnnl_exec_arg_t> args_, src_args_, wei_args_, dst_args_;
};

const bool kRegistered = KernelRegistry::global().add({
    {"aten::conv2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
     &make_kernel<ConvOneDnn<conv_prepare_conv2d>>},
    {"aten::convolution", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
     &make_kernel<ConvOneDnn<conv_prepare_convolution>>},
});

}  // namespace
}  // namespace tir::kernels
