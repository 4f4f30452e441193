// aten::einsum on the two-operand contractions attention and projections write with it
// (torchvision's MaxViT, transformers' LED/ProphetNet): the optimized kernel's batched GEMM
// (kernels/cpu/eigen/einsum_eigen.cc) vs the reference loops. FLOP/s counts 2 * the
// multiply-adds.
#include "bench/bench_util.h"

namespace tir::bench {
namespace {

/// einsum(equation, [input 0, input 1]); `operands` must outlive the Arg.
std::vector<kernels::Arg> einsum_args(const char* equation, const std::vector<int64_t>& operands) {
  kernels::Arg list;
  list.kind = kernels::ArgKind::kTensors;
  list.ints = operands;
  return {string_arg(equation), list, none_arg()};
}

std::vector<KernelCase> cases() {
  static const std::vector<int64_t> kOperands = {0, 1};
  constexpr int64_t kB = 4, kH = 4, kL = 49, kD = 32;  // MaxViT-style windows of 7x7
  const double attn = 2.0 * kB * kH * kL * kL * kD;
  const char* op = "aten::einsum";
  return {
      {"einsum_qk_4x4x49x32",
       op,
       {{kB, kH, kL, kD}, {kB, kH, kL, kD}},
       einsum_args("bhid,bhjd->bhij", kOperands),
       {},
       attn},
      {"einsum_av_4x4x49x32",
       op,
       {{kB, kH, kL, kL}, {kB, kH, kL, kD}},
       einsum_args("bhij,bhjd->bhid", kOperands),
       {},
       attn},
      {"einsum_proj_8x64x256x256",
       op,
       {{8, 64, 256}, {256, 256}},
       einsum_args("bld,dn->bln", kOperands),
       {},
       2.0 * 8 * 64 * 256 * 256},
      {"einsum_heads_out_1x128x12x64",
       op,
       {{1, 128, 12, 64}, {12, 64, 768}},
       einsum_args("blhd,hdm->blm", kOperands),
       {},
       2.0 * 128 * 768 * 768},
  };
}

}  // namespace
}  // namespace tir::bench

int main(int argc, char** argv) {
  return tir::bench::run_cases_main(argc, argv, tir::bench::cases());
}
