// Normalisation: layer_norm over GPT-2 small / BERT-base hidden states [128, 768] and
// batch_norm inference at ResNet-18 shapes, optimized vs reference, bytes/s (input, weight,
// bias, statistics and output per run).
#include "bench/bench_util.h"

namespace tir::bench {
namespace {

const std::vector<int64_t> kHidden = {768};

std::vector<KernelCase> cases() {
  const kernels::Arg x = tensor_arg(0), w = tensor_arg(1), b = tensor_arg(2);
  // input, normalized_shape, weight, bias, eps, cudnn_enable
  const std::vector<kernels::Arg> ln = {x, ints_arg(kHidden), w,
                                        b, float_arg(1e-5),   bool_arg(true)};
  // input, weight, bias, running_mean, running_var (input 4 drawn positive), training,
  // momentum, eps, cudnn_enabled
  const std::vector<kernels::Arg> bn = {x,
                                        w,
                                        b,
                                        tensor_arg(3),
                                        tensor_arg(4),
                                        bool_arg(false),
                                        float_arg(0.1),
                                        float_arg(1e-5),
                                        bool_arg(true)};
  auto bn_case = [&](std::string name, int64_t c, int64_t hw) {
    return KernelCase{
        std::move(name), "aten::batch_norm", {{1, c, hw, hw}, {c}, {c}, {c}, {c}}, bn, {4}};
  };
  return {
      {"layer_norm_128x768", "aten::layer_norm", {{128, 768}, {768}, {768}}, ln},
      {"layer_norm_4x128x768", "aten::layer_norm", {{4, 128, 768}, {768}, {768}}, ln},
      bn_case("batch_norm_1x64x112x112", 64, 112),  // ResNet-18 stem
      bn_case("batch_norm_1x64x56x56", 64, 56),     // layer1
      bn_case("batch_norm_1x256x14x14", 256, 14),   // layer3
  };
}

}  // namespace
}  // namespace tir::bench

int main(int argc, char** argv) {
  return tir::bench::run_cases_main(argc, argv, tir::bench::cases());
}
