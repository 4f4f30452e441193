// Optimized fused scaled dot-product attention (float32, CPU).
//
// Work is split into tasks of (batch, head, block of kBlock query rows) run on OpenMP
// threads. Each task computes its block of scores with one Eigen matmul into the thread's
// slice of scratch (kBlock x S floats: the full B*H*L*S score tensor never exists), applies
// scale, mask and causal cut-off, takes a stable softmax per row and multiplies by V. With
// is_causal the columns past the block's last row are skipped entirely.
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/cpu/onednn/onednn_context.h"
#include "kernels/cpu/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/linear_algebra/attention.h"

namespace tir::kernels {
namespace {

constexpr int64_t kBlock = 32;

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMajor>;

template <Result<AttentionParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
class AttentionEigen final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, Prepare(call, out_info));
    threads_ = std::max(1, omp_get_max_threads());
    slice_bytes_ =
        align64(static_cast<size_t>(kBlock * std::max<int64_t>(p_.s, 1)) * sizeof(float));
    out_info->scratch_bytes = std::max(out_info->scratch_bytes, slice_bytes_ * threads_);
    return ok_status();
  }

  Status run(const KernelCall& call, void* scratch) override {
    if (p_.l == 0 || p_.batch == 0 || p_.heads == 0) return ok_status();
    const int64_t blocks = (p_.l + kBlock - 1) / kBlock;
    const int64_t tasks = p_.batch * p_.heads * blocks;
    const int threads = static_cast<int>(std::min<int64_t>(threads_, tasks));
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int64_t t = 0; t < tasks; ++t) {
      auto* slice = reinterpret_cast<float*>(static_cast<char*>(scratch) +
                                             slice_bytes_ * omp_get_thread_num());
      block(call, t / blocks, (t % blocks) * kBlock, slice);
    }
    return ok_status();
  }

 private:
  // Rows [i0, i0 + kBlock) of head `bh` (= b * heads + h).
  void block(const KernelCall& call, int64_t bh, int64_t i0, float* scores) const {
    const int64_t b = bh / p_.heads, h = bh % p_.heads;
    const int64_t rows = std::min(kBlock, p_.l - i0);
    const int64_t kvh = b * p_.kv_heads + h / (p_.heads / p_.kv_heads);
    const int64_t cols = p_.causal ? std::min(p_.s, i0 + rows) : p_.s;
    const float* q = call.inputs[p_.q_input].data_as<const float>() + (bh * p_.l + i0) * p_.e;
    const float* k = call.inputs[p_.k_input].data_as<const float>() + kvh * p_.s * p_.e;
    const float* v = call.inputs[p_.v_input].data_as<const float>() + kvh * p_.s * p_.ev;
    float* out = call.outputs[0].data_as<float>() + (bh * p_.l + i0) * p_.ev;
    float* lse = p_.with_lse ? call.outputs[1].data_as<float>() + bh * p_.l + i0 : nullptr;
    Eigen::Map<RowMajor> outm(out, rows, p_.ev);
    if (cols == 0) {
      outm.setZero();
      if (lse) std::fill(lse, lse + rows, 0.f);
      return;
    }
    Eigen::Map<RowMajor> s(scores, rows, cols);
    s.noalias() = ConstMap(q, rows, p_.e) * ConstMap(k, cols, p_.e).transpose();
    s *= static_cast<float>(p_.scale);
    constexpr float kNegInf = -std::numeric_limits<float>::infinity();
    constexpr float kCut = -40.f;
    const float kCutWeight = std::exp(kCut) * 1.0001f;
    const void* mask = p_.mask_input >= 0 ? call.inputs[p_.mask_input].data : nullptr;
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t i = i0 + r;
      float* row = scores + r * cols;
      if (mask) {
        const int64_t mo = b * p_.mask_strides[0] + h * p_.mask_strides[1] + i * p_.mask_strides[2];
        const int64_t ms = p_.mask_strides[3];
        if (p_.mask == AttentionParams::Mask::kBool) {
          const auto* m = static_cast<const bool*>(mask) + mo;
          for (int64_t j = 0; j < cols; ++j) row[j] = m[j * ms] ? row[j] : kNegInf;
        } else {
          const auto* m = static_cast<const float*>(mask) + mo;
          for (int64_t j = 0; j < cols; ++j) row[j] += m[j * ms];
        }
      }
      if (p_.causal) std::fill(row + std::min(cols, i + 1), row + cols, kNegInf);
      auto rv = s.row(r).array();
      const float mx = rv.maxCoeff();
      if (mx == kNegInf) {  // fully masked: zeros, as torch
        rv.setZero();
        if (lse) lse[r] = 0.f;
        continue;
      }
      // Scores more than 40 below the row's max (masked ones: -inf) weigh exactly 0: their
      // true weight, under e^-40 = 4e-18 of the max's, is lost in float32 rounding anyway.
      // Eigen's exp would give -inf ~3e-39 instead of 0, and that subnormal (and the
      // products it enters) runs on the FPU's microcode-assisted slow path: the exp's
      // argument is clamped so no lane ever makes one (and the select after the exp keeps
      // Eigen on its vectorized path: a select around exp() is 3x slower).
      rv = (rv - mx).max(kCut).exp();
      rv = (rv > kCutWeight).select(rv, 0.f);
      const float sum = rv.sum();
      rv *= 1.f / sum;
      if (lse) lse[r] = mx + std::log(sum);
    }
    outm.noalias() = s * ConstMap(v, cols, p_.ev);
  }

  AttentionParams p_;
  int threads_ = 1;
  size_t slice_bytes_ = 0;
};

}  // namespace

void register_attention_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::scaled_dot_product_attention", kCpu, kF32, kOpt,
       &make_kernel<AttentionEigen<attention_prepare_sdpa>>},
      {"aten::_scaled_dot_product_flash_attention_for_cpu", kCpu, kF32, kOpt,
       &make_kernel<AttentionEigen<attention_prepare_flash_cpu>>},
  });
}
}  // namespace tir::kernels
