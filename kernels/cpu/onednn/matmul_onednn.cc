// Optimized batched matrix products on the oneDNN matmul primitive: aten::bmm,
// aten::matmul, aten::baddbmm.
//
// The whole broadcast batch is one primitive: oneDNN broadcasts size-1 batch dims of src
// and weights itself. Should a build of oneDNN reject a broadcast pattern, the kernel
// falls back to one 2-D primitive executed per batch. baddbmm's beta*self is copied
// (broadcast) into the output first and accumulated with a sum post-op; alpha is an
// output scale.
//
// In bf16 (KernelCall::precision) both operands are converted to plain bf16 (a weight
// operand once, when prepared; kernels/cpu/onednn/onednn_operand.h), attention's activation x
// activation products included; accumulation and output stay float32.
#include <vector>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/onednn/onednn_operand.h"
#include "kernels/cpu/register.h"
#include "kernels/reference/linear_algebra/matmul.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

using dnnl::memory;

memory::desc plain_desc(const memory::dims& dims, memory::data_type dt = memory::data_type::f32) {
  memory::dims strides(dims.size());
  memory::dim s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return memory::desc(dims, dt, strides);
}

template <Result<MatmulParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
class MatmulOneDnn final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, Prepare(call, out_info));
    fallback_ = p_.m == 0 || p_.n == 0 || p_.k == 0 || p_.batch_count() == 0;
    if (fallback_) return ok_status();
    sum_ = p_.c_input >= 0 && p_.beta != 0.0;
    return onednn_guard(call, [&] { return build(call, out_info); });
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (fallback_) {
      ref_matmul(p_, call, scratch);
      return ok_status();
    }
    float* out = call.outputs[0].data_as<float>();
    if (sum_) copy_c(call, out);
    return onednn_guard(call, [&]() -> Status {
      void* a_data = call.inputs[p_.a_input].data;
      void* b_data = call.inputs[p_.b_input].data;
      if (bf16_) {
        TIR_ASSIGN_OR_RETURN(a_data, a_bf16_.convert(call, a_data, scratch));
        TIR_ASSIGN_OR_RETURN(b_data, b_bf16_.convert(call, b_data, scratch));
      }
      scratchpad_.set_data_handle(scratch);
      if (!per_batch_) {
        src_.set_data_handle(a_data);
        wei_.set_data_handle(b_data);
        dst_.set_data_handle(out);
        return onednn_execute(call, prim_, args_);
      }
      const size_t elem = bf16_ ? 2 : 4;  // operand element bytes
      const auto* a = static_cast<const char*>(a_data);
      const auto* b = static_cast<const char*>(b_data);
      std::array<int64_t, kMaxRank> idx{};
      int64_t ao = 0, bo = 0;
      for (int64_t bi = 0, n = p_.batch_count(); bi < n; ++bi) {
        src_.set_data_handle(const_cast<char*>(a + ao * elem));
        wei_.set_data_handle(const_cast<char*>(b + bo * elem));
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

  Status build(const KernelCall& call, PrepareInfo* out_info) {
    dnnl::engine& eng = onednn_engine(call);
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
    const memory::dims src_all = src, wei_all = wei;  // whole operands, for bf16 conversion
    const auto make_pd = [&](memory::data_type dt) {
      return dnnl::matmul::primitive_desc(
          dnnl::matmul::desc(plain_desc(src, dt), plain_desc(wei, dt), plain_desc(dst)), attr, eng);
    };
    // Broadcast batch in one primitive, else one 2-D primitive per batch; bf16 operands if
    // asked for and oneDNN has them, else float32.
    const auto make_any_batch = [&](memory::data_type dt) {
      per_batch_ = false;
      try {
        return make_pd(dt);
      } catch (const dnnl::error&) {
        per_batch_ = true;
        src = {p_.m, p_.k};
        wei = {p_.k, p_.n};
        dst = {p_.m, p_.n};
        return make_pd(dt);
      }
    };
    dnnl::matmul::primitive_desc pd;
    bf16_ = false;
    if (call.precision == Precision::kBFloat16) {
      try {
        pd = make_any_batch(memory::data_type::bf16);
        bf16_ = true;
      } catch (const dnnl::error& e) {
        onednn_note_bf16_unavailable(call, e.what());
        src = src_all;
        wei = wei_all;
        dst.assign(p_.batch.begin(), p_.batch.begin() + p_.batch_rank);
        dst.insert(dst.end(), {p_.m, p_.n});
      }
    }
    if (!bf16_) pd = make_any_batch(memory::data_type::f32);
    prim_ = dnnl::matmul(pd);
    src_ = memory(pd.src_desc(), eng, DNNL_MEMORY_NONE);
    wei_ = memory(pd.weights_desc(), eng, DNNL_MEMORY_NONE);
    dst_ = memory(pd.dst_desc(), eng, DNNL_MEMORY_NONE);
    scratchpad_ = memory(pd.scratchpad_desc(), eng, DNNL_MEMORY_NONE);
    args_ = {{DNNL_ARG_SRC, src_.get()},
             {DNNL_ARG_WEIGHTS, wei_.get()},
             {DNNL_ARG_DST, dst_.get()},
             {DNNL_ARG_SCRATCHPAD, scratchpad_.get()}};
    size_t scratch = pd.scratchpad_desc().get_size();
    if (bf16_) {
      scratch = align64(scratch);
      const auto bf16 = memory::data_type::bf16;
      TIR_RETURN_IF_ERROR(
          a_bf16_.init(call, plain_desc(src_all), plain_desc(src_all, bf16), p_.a_input, &scratch));
      TIR_RETURN_IF_ERROR(
          b_bf16_.init(call, plain_desc(wei_all), plain_desc(wei_all, bf16), p_.b_input, &scratch));
    }
    out_info->scratch_bytes = scratch;
    return ok_status();
  }

  MatmulParams p_;
  bool fallback_ = false, sum_ = false, per_batch_ = false;
  bool bf16_ = false;  // computing in bf16 (asked for, and oneDNN has an implementation)
  OnednnOperand a_bf16_, b_bf16_;
  dnnl::matmul prim_;
  memory src_, wei_, dst_, scratchpad_;
  std::vector<dnnl_exec_arg_t> args_;
};

}  // namespace

void register_matmul_onednn(KernelRegistry& registry) {
  registry.add({
      {"aten::bmm", kCpu, kF32, kOpt, &make_kernel<MatmulOneDnn<matmul_prepare_bmm>>},
      {"aten::matmul", kCpu, kF32, kOpt, &make_kernel<MatmulOneDnn<matmul_prepare_matmul>>},
      {"aten::baddbmm", kCpu, kF32, kOpt, &make_kernel<MatmulOneDnn<matmul_prepare_baddbmm>>},
  });
}
}  // namespace tir::kernels
