// Optimized aten::max_pool2d on oneDNN max pooling (plain NCHW, no reorders). ceil_mode
// becomes extra right padding; oneDNN never selects padded taps, like ATen. If oneDNN
// rejects a geometry the kernel runs the reference loop. oneDNN neither propagates NaN nor
// returns -inf for a window of -inf (it starts from the lowest finite float): an input
// holding either runs the reference loop too (one vectorised pass finds them).
// max_pool2d_with_indices stays reference: oneDNN's workspace is not ATen's flat H*W index.
#include <Eigen/Core>
#include <limits>
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/register.h"
#include "kernels/reference/reference_kernels.h"

namespace tir::kernels {
namespace {

using dnnl::memory;

class MaxPoolOneDnn final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, pool_prepare_max_pool2d(call, out_info));
    fallback_ = p_.planes() == 0;
    if (fallback_) return ok_status();
    try {
      build(call, out_info);
    } catch (const dnnl::error&) {
      fallback_ = true;  // geometry oneDNN does not take: reference loops are exact
      out_info->scratch_bytes = 0;
    }
    return ok_status();
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (fallback_ || !above_minus_inf(call.inputs[p_.input])) {
      ref_max_pool2d(p_, call, scratch);
      return ok_status();
    }
    return onednn_guard(call, [&] {
      src_.set_data_handle(call.inputs[p_.input].data);
      dst_.set_data_handle(call.outputs[0].data);
      scratchpad_.set_data_handle(scratch);
      return onednn_execute(call, prim_, args_);
    });
  }

 private:
  /// Every element is > -inf (no NaN, no -inf).
  static bool above_minus_inf(const Tensor& x) {
    const Eigen::Map<const Eigen::ArrayXf> a(x.data_as<const float>(), x.numel());
    return (a > -std::numeric_limits<float>::infinity()).all();
  }

  void build(const KernelCall& call, PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine(call);
    // N and C as they are (not folded into one "planes" dim): oneDNN's JIT pooling takes
    // plain NCHW only when it can vectorize over channels; with C = 1 it falls back to a
    // scalar loop (8.9 ms instead of ~0.3 ms for ResNet-18's 64x112x112 max pool).
    const memory::desc src_md = onednn_plain_f32({p_.n, p_.c, p_.h, p_.w});
    const memory::desc dst_md = onednn_plain_f32({p_.n, p_.c, p_.oh, p_.ow});
    memory::dims pad_r(2);
    const int64_t in[2] = {p_.h, p_.w}, out[2] = {p_.oh, p_.ow};
    for (int i = 0; i < 2; ++i) {
      // right padding that makes oneDNN's floor formula give ATen's output size
      pad_r[i] =
          (out[i] - 1) * p_.stride[i] + (p_.kernel[i] - 1) * p_.dil[i] + 1 - in[i] - p_.pad[i];
    }
    const dnnl::pooling_v2_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, src_md, dst_md,
        {p_.stride[0], p_.stride[1]}, {p_.kernel[0], p_.kernel[1]}, {p_.dil[0] - 1, p_.dil[1] - 1},
        {p_.pad[0], p_.pad[1]}, pad_r);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dnnl::pooling_v2_forward::primitive_desc pd(desc, attr, eng);
    prim_ = dnnl::pooling_v2_forward(pd);
    src_ = memory(src_md, eng, DNNL_MEMORY_NONE);
    dst_ = memory(dst_md, eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    out_info->scratch_bytes = pd.scratchpad_desc().get_size();
  }

  MaxPoolParams p_;
  bool fallback_ = false;
  dnnl::pooling_v2_forward prim_;
  memory src_, dst_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
};

}  // namespace

void register_pool_onednn(KernelRegistry& registry) {
  registry.add({
      {"aten::max_pool2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized,
       &make_kernel<MaxPoolOneDnn>},
  });
}
}  // namespace tir::kernels
