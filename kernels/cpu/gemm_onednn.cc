// Optimized GEMM family on the oneDNN matmul primitive: aten::linear, aten::addmm, aten::mm.
//
// In float32, weights are read in place (linear's [N, K] weight is described to oneDNN as a
// transposed [K, N] matrix); nothing is packed, so swapped weights need no re-prepare.
// In bf16 (KernelCall::precision), A is converted per run and B, when it is a weight,
// packed to bf16 once (kernels/cpu/onednn_bf16.h); accumulation and output stay float32.
// addmm's alpha is an output scale; beta*self is either a row-broadcast bias (alpha ==
// beta == 1) or, in general, self broadcast into the output followed by a sum post-op.
#include <algorithm>
#include <vector>

#include "kernels/cpu/onednn_bf16.h"
#include "kernels/cpu/onednn_context.h"
#include "kernels/cpu/onednn_epilogue.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

using dnnl::memory;

template <Result<GemmParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
class GemmOneDnn final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, Prepare(call, out_info));
    fallback_ = p_.m == 0 || p_.n == 0 || p_.k == 0;
    if (fallback_) return ok_status();
    return onednn_guard(call, [&] { return build(call, out_info); });
  }

  bool accepts_epilogue() const override { return true; }

  Status run(const KernelCall& call, void* scratch) override {
    if (fallback_) {
      ref_gemm(p_, call, scratch);
      return ok_status();
    }
    float* out = call.outputs[0].data_as<float>();
    const float* c = p_.c_input >= 0 ? call.inputs[p_.c_input].data_as<const float>() : nullptr;
    if (mode_ == Mode::kSum) {
      for (int64_t i = 0; i < p_.m; ++i) {
        const float* row = c + i * p_.c_row_stride;
        float* orow = out + i * p_.n;
        if (p_.c_col_stride == 1) {
          std::copy(row, row + p_.n, orow);
        } else {
          std::fill(orow, orow + p_.n, row[0]);
        }
      }
    }
    return onednn_guard(call, [&]() -> Status {
      void* a = call.inputs[p_.a_input].data;
      void* b = call.inputs[p_.b_input].data;
      if (bf16_) {
        TIR_ASSIGN_OR_RETURN(a, a_bf16_.convert(call, a, scratch));
        TIR_ASSIGN_OR_RETURN(b, b_bf16_.convert(call, b, scratch));
      }
      src_.set_data_handle(a);
      wei_.set_data_handle(b);
      dst_.set_data_handle(out);
      if (mode_ == Mode::kBias) bias_.set_data_handle(const_cast<float*>(c));
      scratchpad_.set_data_handle(scratch);
      return onednn_execute(call, prim_, args_);
    });
  }

 private:
  enum class Mode { kPlain, kBias, kSum };

  Status build(const KernelCall& call, PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine();
    const memory::dim m = p_.m, k = p_.k, n = p_.n;
    using dt = memory::data_type;
    const memory::desc src_f32({m, k}, dt::f32, memory::dims{k, 1});
    const memory::desc wei_f32({k, n}, dt::f32,
                               p_.b_transposed ? memory::dims{1, k} : memory::dims{n, 1});
    const memory::desc dst_md({m, n}, dt::f32, memory::dims{n, 1});
    mode_ = Mode::kPlain;
    if (p_.c_input >= 0 && p_.beta != 0.0) {
      mode_ =
          (p_.alpha == 1.0 && p_.beta == 1.0 && p_.c_row_stride == 0) ? Mode::kBias : Mode::kSum;
    }
    memory::desc bias_md;
    if (mode_ == Mode::kBias) {
      const memory::dim bn = p_.c_col_stride == 0 ? 1 : n;
      bias_md = memory::desc({1, bn}, memory::data_type::f32, memory::dims{bn, 1});
    }
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (p_.alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(p_.alpha)});
    dnnl::post_ops ops;
    if (mode_ == Mode::kSum) ops.append_sum(static_cast<float>(p_.beta));
    onednn_append_activation(ops, call.epilogue);  // after the sum: act(alpha*A*B + beta*C)
    if (ops.len() > 0) attr.set_post_ops(ops);
    dnnl::matmul::primitive_desc pd;
    bf16_ = false;
    if (call.precision == Precision::kBFloat16) {
      // bf16 A and B (B in the layout oneDNN prefers: packed once), f32 bias and output.
      try {
        pd = dnnl::matmul::primitive_desc(
            dnnl::matmul::desc(memory::desc({m, k}, dt::bf16, memory::dims{k, 1}),
                               memory::desc({k, n}, dt::bf16, memory::format_tag::any), bias_md,
                               dst_md),
            attr, eng);
        bf16_ = true;
      } catch (const dnnl::error& e) {
        onednn_note_bf16_unavailable(call, e.what());
      }
    }
    if (!bf16_)
      pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(src_f32, wei_f32, bias_md, dst_md), attr,
                                        eng);
    prim_ = dnnl::matmul(pd);
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(pd.weights_desc(), eng, DNNL_MEMORY_NONE);
    dst_ = memory(dst_md, eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    if (mode_ == Mode::kBias) {
      bias_ = memory(bias_md, eng, DNNL_MEMORY_NONE);
      args_.push_back({DNNL_ARG_BIAS, bias_.get()});
    }
    size_t scratch = pd.scratchpad_desc().get_size();
    if (bf16_) {
      scratch = align64(scratch);
      TIR_RETURN_IF_ERROR(
          a_bf16_.init(call, src_f32, pd.src_desc(), call.inputs[p_.a_input].data, &scratch));
      TIR_RETURN_IF_ERROR(
          b_bf16_.init(call, wei_f32, pd.weights_desc(), call.inputs[p_.b_input].data, &scratch));
    }
    out_info->scratch_bytes = scratch;
    return ok_status();
  }

  GemmParams p_;
  bool fallback_ = false;
  bool bf16_ = false;  // computing in bf16 (asked for, and oneDNN has an implementation)
  OnednnBf16Operand a_bf16_, b_bf16_;
  Mode mode_ = Mode::kPlain;
  dnnl::matmul prim_;
  memory src_, wei_, dst_, bias_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
};

constexpr auto kOpt = KernelImpl::kOptimized;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;

const bool kRegistered = KernelRegistry::global().add({
    {"aten::linear", kCpu, kF32, kOpt, &make_kernel<GemmOneDnn<gemm_prepare_linear>>},
    {"aten::addmm", kCpu, kF32, kOpt, &make_kernel<GemmOneDnn<gemm_prepare_addmm>>},
    {"aten::mm", kCpu, kF32, kOpt, &make_kernel<GemmOneDnn<gemm_prepare_mm>>},
});

}  // namespace
}  // namespace tir::kernels
