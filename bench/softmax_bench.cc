// Softmax over the last dim: GPT-2 small / BERT-base attention scores [12 heads, 128, 128]
// and GPT-2's LM-head logits [128, 50257] (softmax and log_softmax), optimized vs
// reference, bytes/s (input + output per run).
#include "bench/bench_util.h"

namespace tir::bench {
namespace {

std::vector<KernelCase> cases() {
  const kernels::Arg x = tensor_arg(0), last = int_arg(-1);
  return {
      {"softmax_12x128x128", "aten::softmax.int", {{12, 128, 128}}, {x, last, none_arg()}},
      {"softmax_1x12x128x128", "aten::_softmax", {{1, 12, 128, 128}}, {x, last, bool_arg(false)}},
      {"softmax_128x50257", "aten::softmax.int", {{128, 50257}}, {x, last, none_arg()}},
      {"log_softmax_128x50257", "aten::log_softmax.int", {{128, 50257}}, {x, last, none_arg()}},
  };
}

}  // namespace
}  // namespace tir::bench

int main(int argc, char** argv) {
  return tir::bench::run_cases_main(argc, argv, tir::bench::cases());
}
