// Optimized batched matrix products on the oneDNN matmul primitive: aten::bmm,
// aten::matmul, aten::baddbmm.
//
// The whole broadcast batch is one primitive: oneDNN broadcasts size-1 batch dims of src
// and weights itself. Should a build of oneDNN reject a broadcast pattern, the kernel
// falls back to one 2-D primitive executed per batch. baddbmm's beta*self is copied
// (broadcast) into the output first and accumulated with a sum post-op; alpha is an
// output scale.
#include <vector>

#include "kernels/cpu/onednn_context.h"
#include "kernels/reference/linalg_ref.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

using dnnl::memory;

memory::desc plain_desc(const memory::dims& dims) {
  memory::dims strides(dims.size());
  memory::dim s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

template <Result<MatmulParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
class MatmulOneDnn final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, Prepare(call, out_info));
    fallback_ = p_.m == 0 || p_.n == 0 || p_.k == 0 || p_.batch_count() == 0;
    if (fallback_) return ok_status();
    sum_ = p_.c_input >= 0 && p_.beta != 0.0;
    return onednn_guard(call, [&] { return build(out_info); });
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (fallback_) {
      ref_matmul(p_, call, scratch);
      return ok_status();
    }
    float* out = call.outputs[0].data_as<float>();
    if (sum_) copy_c(call, out);
    const auto* a = call.inputs[p_.a_input].data_as<float>();
    const auto* b = call.inputs[p_.b_input].data_as<float>();
    return onednn_guard(call, [&]() -> Status {
      scratchpad_.set_data_handle(scratch);
      if (!per_batch_) {
        src_.set_data_handle(const_cast<float*>(a));
        wei_.set_data_handle(const_cast<float*>(b));
        dst_.set_data_handle(out);
        return onednn_execute(call, prim_, args_);
      }
      std::array<int64_t, kMaxRank> idx{};
      int64_t ao = 0, bo = 0;
      for (int64_t bi = 0, n = p_.batch_count(); bi < n; ++bi) {
        src_.set_data_handle(const_cast<float*>(a + ao));
        wei_.set_data_handle(const_cast<float*>(b + bo));
        dst_.set_data_handle(out + bi * p_.m * p_.n);
        TIR_RETURN_IF_ERROR(onednn_execute(call, prim_, args_));
        for (int d = p_.batch_rank - 1; d >= 0; --d) {
          ao += p_.a_bstrides[d];
          bo += p_.b_bstrides[d];
          if (++idx[d] < p_.batch[d]) break;
          ao -= p_.a_bstrides[d] * p_.batch[d];
          bo -= p_.b_bstrides[d] * p_.batch[d];
          idx[d] = 0;
        }
      }
      return ok_status();
    });
  }

 private:
  // out[b, i, j] = C broadcast (baddbmm only has one batch dim).
  void copy_c(const KernelCall& call, float* out) const {
    const float* c = call.inputs[p_.c_input].data_as<const float>();
    for (int64_t bi = 0; bi < p_.batch[0]; ++bi) {
      for (int64_t i = 0; i < p_.m; ++i) {
        const float* row = c + bi * p_.c_bstrides[0] + i * p_.c_row_stride;
        float* orow = out + (bi * p_.m + i) * p_.n;
        for (int64_t j = 0; j < p_.n; ++j) orow[j] = row[j * p_.c_col_stride];
      }
    }
  }

  Status build(PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine();
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (p_.alpha != 1.0) attr.set_output_scales(0, {static_cast<float>(p_.alpha)});
    if (sum_) {
      dnnl::post_ops ops;
      ops.append_sum(static_cast<float>(p_.beta));
      attr.set_post_ops(ops);
    }
    memory::dims src{}, wei{}, dst{};
    for (int i = 0; i < p_.batch_rank; ++i) {
      src.push_back(p_.a_batch[i]);
      wei.push_back(p_.b_batch[i]);
      dst.push_back(p_.batch[i]);
    }
    src.insert(src.end(), {p_.m, p_.k});
    wei.insert(wei.end(), {p_.k, p_.n});
    dst.insert(dst.end(), {p_.m, p_.n});
    dnnl::matmul::primitive_desc pd;
    per_batch_ = false;
    try {
      pd = dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(plain_desc(src), plain_desc(wei), plain_desc(dst)), attr, eng);
    } catch (const dnnl::error&) {
      per_batch_ = true;
      src = {p_.m, p_.k};
      wei = {p_.k, p_.n};
      dst = {p_.m, p_.n};
      pd = dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(plain_desc(src), plain_desc(wei), plain_desc(dst)), attr, eng);
    }
    prim_ = dnnl::matmul(pd);
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(pd.weights_desc(), eng, DNNL_MEMORY_NONE);
    dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    out_info->scratch_bytes = pd.scratchpad_desc().get_size();
    return ok_status();
  }

  MatmulParams p_;
  bool fallback_ = false, sum_ = false, per_batch_ = false;
  dnnl::matmul prim_;
  memory src_, wei_, dst_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
};

constexpr auto kOpt = KernelImpl::kOptimized;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;

const bool kRegistered = KernelRegistry::global().add({
    {"aten::bmm", kCpu, kF32, kOpt, &make_kernel<MatmulOneDnn<matmul_prepare_bmm>>},
    {"aten::matmul", kCpu, kF32, kOpt, &make_kernel<MatmulOneDnn<matmul_prepare_matmul>>},
    {"aten::baddbmm", kCpu, kF32, kOpt, &make_kernel<MatmulOneDnn<matmul_prepare_baddbmm>>},
});

}  // namespace
}  // namespace tir::kernels
