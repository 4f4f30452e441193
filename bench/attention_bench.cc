// scaled_dot_product_attention at GPT-2 small / BERT-base shapes (batch 1, 12 heads, 128
// tokens, head dim 64): causal (GPT-2), with BERT's additive padding mask [1, 1, 1, 128]
// broadcast over heads and queries, and with a full float mask [1, 1, 128, 128]. Fused
// optimized kernel vs reference. FLOP/s counts QK^T and PV only, 4*B*H*L*S*E, and for
// the causal case only the unmasked part (keys 0..i for query i).
#include "bench/bench_util.h"

namespace tir::bench {
namespace {

constexpr int64_t kB = 1, kH = 12, kL = 128, kE = 64;

std::vector<KernelCase> cases() {
  const std::vector<int64_t> qkv = {kB, kH, kL, kE};
  const double full = 4.0 * kB * kH * kL * kL * kE;
  const double causal = 4.0 * kB * kH * kE * (kL * (kL + 1) / 2);
  // query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa
  auto args = [](bool mask, bool is_causal) {
    return std::vector<kernels::Arg>{
        tensor_arg(0),  tensor_arg(1),       tensor_arg(2), mask ? tensor_arg(3) : none_arg(),
        float_arg(0.0), bool_arg(is_causal), none_arg(),    bool_arg(false)};
  };
  const char* op = "aten::scaled_dot_product_attention";
  return {
      {"sdpa_causal_1x12x128x64", op, {qkv, qkv, qkv}, args(false, true), {}, causal},
      {"sdpa_nomask_1x12x128x64", op, {qkv, qkv, qkv}, args(false, false), {}, full},
      {"sdpa_padmask_1x12x128x64", op, {qkv, qkv, qkv, {1, 1, 1, kL}}, args(true, false), {}, full},
      {"sdpa_mask_1x12x128x64", op, {qkv, qkv, qkv, {1, 1, kL, kL}}, args(true, false), {}, full},
  };
}

}  // namespace
}  // namespace tir::bench

int main(int argc, char** argv) {
  return tir::bench::run_cases_main(argc, argv, tir::bench::cases());
}
