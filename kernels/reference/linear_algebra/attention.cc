// Reference scaled dot-product attention (float32 and float64), one query row at a time in
// double:
// softmax(scale * q k^T + mask) v, with the mask/causal/GQA rules of
// shapes/linear_algebra/attention.h.
#include "kernels/reference/linear_algebra/attention.h"

#include <cmath>
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {

namespace {

template <typename T>
void sdpa_typed(const AttentionParams& p, const KernelCall& call, void* scratch) {
  const T* q = call.inputs[p.q_input].data_as<const T>();
  const T* k = call.inputs[p.k_input].data_as<const T>();
  const T* v = call.inputs[p.v_input].data_as<const T>();
  const void* mask = p.mask_input >= 0 ? call.inputs[p.mask_input].data : nullptr;
  T* out = call.outputs[0].data_as<T>();
  T* lse = p.with_lse ? call.outputs[1].data_as<T>() : nullptr;
  auto* scores = static_cast<double*>(scratch);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const int64_t group = p.kv_heads > 0 ? p.heads / p.kv_heads : 1;
  for (int64_t b = 0; b < p.batch; ++b) {
    for (int64_t h = 0; h < p.heads; ++h) {
      const int64_t kvh = b * p.kv_heads + h / group;
      const T* kb = k + kvh * p.s * p.e;
      const T* vb = v + kvh * p.s * p.ev;
      for (int64_t i = 0; i < p.l; ++i) {
        const int64_t row = (b * p.heads + h) * p.l + i;
        const T* qi = q + row * p.e;
        const int64_t mrow = b * p.mask_strides[0] + h * p.mask_strides[1] + i * p.mask_strides[2];
        double mx = neg_inf;
        for (int64_t j = 0; j < p.s; ++j) {
          double dot = 0;
          for (int64_t c = 0; c < p.e; ++c) dot += static_cast<double>(qi[c]) * kb[j * p.e + c];
          double sc = dot * p.scale;
          const int64_t mo = mrow + j * p.mask_strides[3];
          if (p.causal && j > i) sc = neg_inf;
          if (p.mask == AttentionParams::Mask::kBool && !static_cast<const bool*>(mask)[mo]) {
            sc = neg_inf;
          }
          if (p.mask == AttentionParams::Mask::kFloat) sc += static_cast<const T*>(mask)[mo];
          scores[j] = sc;
          mx = std::max(mx, sc);
        }
        T* oi = out + row * p.ev;
        for (int64_t c = 0; c < p.ev; ++c) oi[c] = T(0);
        if (mx == neg_inf) {  // fully masked row
          if (lse) lse[row] = T(0);
          continue;
        }
        double sum = 0;
        for (int64_t j = 0; j < p.s; ++j) sum += (scores[j] = std::exp(scores[j] - mx));
        for (int64_t c = 0; c < p.ev; ++c) {
          double acc = 0;
          for (int64_t j = 0; j < p.s; ++j) acc += scores[j] * vb[j * p.ev + c];
          oi[c] = static_cast<T>(acc / sum);
        }
        if (lse) lse[row] = static_cast<T>(mx + std::log(sum));
      }
    }
  }
}

}  // namespace

void ref_sdpa(const AttentionParams& p, const KernelCall& call, void* scratch) {
  if (p.dtype == DType::kFloat64)
    sdpa_typed<double>(p, call, scratch);
  else
    sdpa_typed<float>(p, call, scratch);
}

namespace {

using SdpaRef = FnKernel<AttentionParams, attention_prepare_sdpa, ref_sdpa>;
using FlashCpuRef = FnKernel<AttentionParams, attention_prepare_flash_cpu, ref_sdpa>;

}  // namespace

void register_attention_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::scaled_dot_product_attention", kCpu, kF32, kRef, &make_kernel<SdpaRef>},
      {"aten::scaled_dot_product_attention", kCpu, kF64, kRef, &make_kernel<SdpaRef>},
      {"aten::_scaled_dot_product_flash_attention_for_cpu", kCpu, kF32, kRef,
       &make_kernel<FlashCpuRef>},
      {"aten::_scaled_dot_product_flash_attention_for_cpu", kCpu, kF64, kRef,
       &make_kernel<FlashCpuRef>},
  });
}
}  // namespace tir::kernels
