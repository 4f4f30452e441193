// Shared shape inference for attention: aten::scaled_dot_product_attention and
// aten::_scaled_dot_product_flash_attention_for_cpu (output, logsumexp). float32,
// contiguous, query [B, H, L, E] or [B, L, E], key [.., Hk, S, E], value [.., Hk, S, Ev].
//
// Semantics follow ATen's math path: attn_mask is bool (True = keep) or float (added to
// the scaled scores) and broadcasts to [.., H, L, S]; is_causal keeps j <= i (top-left
// aligned); scale None is 1/sqrt(E); enable_gqa maps query head h to kv head h / (H/Hk); without
// it a single kv head broadcasts to every query head (Hk = 1), as torch's batched matmul does.
// A row whose every score is -inf yields zeros (and logsumexp 0), as torch 2.15 does.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct AttentionParams {
  int64_t batch = 1, heads = 1, kv_heads = 1;
  int64_t l = 0, s = 0, e = 0, ev = 0;
  double scale = 1.0;
  bool causal = false;
  enum class Mask : uint8_t { kNone, kBool, kFloat } mask = Mask::kNone;
  /// mask element strides over (batch, head, row, col); 0 where broadcast
  std::array<int64_t, 4> mask_strides{};
  int q_input = -1, k_input = -1, v_input = -1, mask_input = -1;
  bool with_lse = false;          // _scaled_dot_product_flash_attention_for_cpu's second output
  DType dtype = DType::kFloat32;  // query, key, value, a float mask and the outputs
};

Result<AttentionParams> attention_prepare_sdpa(const KernelCall& call, PrepareInfo* out_info);
Result<AttentionParams> attention_prepare_flash_cpu(const KernelCall& call, PrepareInfo* out_info);

/// Scratch the reference kernel needs (one row of scores).
inline size_t attention_ref_scratch_bytes(const AttentionParams& p) {
  return static_cast<size_t>(p.s) * sizeof(double);
}

}  // namespace tir::kernels
