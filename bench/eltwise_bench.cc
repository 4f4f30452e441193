// Element-wise ops at GPT-2 small / BERT-base (seq 128, hidden 768, MLP 3072), ResNet-18 and
// MobileNetV3-large shapes, optimized vs reference, bytes/s (inputs + output per run).
#include "bench/bench_util.h"

namespace tir::bench {
namespace {

std::vector<KernelCase> cases() {
  const kernels::Arg x = tensor_arg(0), y = tensor_arg(1), alpha = int_arg(1);
  return {
      // residual add of a transformer block; ResNet-18 layer1 shortcut add
      {"add_residual_128x768", "aten::add.Tensor", {{128, 768}, {128, 768}}, {x, y, alpha}},
      {"add_shortcut_1x64x56x56",
       "aten::add.Tensor",
       {{1, 64, 56, 56}, {1, 64, 56, 56}},
       {x, y, alpha}},
      // linear bias broadcast over tokens (MLP up projection)
      {"add_bias_128x3072", "aten::add.Tensor", {{128, 3072}, {3072}}, {x, y, alpha}},
      {"mul_128x3072", "aten::mul.Tensor", {{128, 3072}, {128, 3072}}, {x, y}},
      // squeeze-excitation scale of MobileNetV3-large (per-channel broadcast)
      {"mul_se_1x672x14x14", "aten::mul.Tensor", {{1, 672, 14, 14}, {1, 672, 1, 1}}, {x, y}},
      {"gelu_128x3072", "aten::gelu", {{128, 3072}}, {x, string_arg("none")}},
      {"gelu_tanh_128x3072", "aten::gelu", {{128, 3072}}, {x, string_arg("tanh")}},
      {"tanh_128x3072", "aten::tanh", {{128, 3072}}, {x}},
      {"relu_1x64x56x56", "aten::relu", {{1, 64, 56, 56}}, {x}},
      // MobileNetV3-large stem activation
      {"hardswish_1x16x112x112", "aten::hardswish", {{1, 16, 112, 112}}, {x}},
  };
}

}  // namespace
}  // namespace tir::bench

int main(int argc, char** argv) {
  return tir::bench::run_cases_main(argc, argv, tir::bench::cases());
}
