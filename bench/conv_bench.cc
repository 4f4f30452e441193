// aten::conv2d with ResNet-18 shapes: the 7x7/2 stem and 3x3 block convs.
#include "bench/bench_util.h"

namespace tir::bench {
namespace {

// range: n, c, hw, oc, k, stride
void run_conv(benchmark::State& state, kernels::KernelImpl impl) {
  const int64_t n = state.range(0), c = state.range(1), hw = state.range(2), oc = state.range(3),
                k = state.range(4), s = state.range(5);
  const std::vector<int64_t> stride = {s, s}, pad = {k / 2, k / 2}, dil = {1, 1};
  PreparedKernel pk;
  const std::string err = pk.setup("aten::conv2d", {{n, c, hw, hw}, {oc, c, k, k}},
                                   {tensor_arg(0), tensor_arg(1), none_arg(), ints_arg(stride),
                                    ints_arg(pad), ints_arg(dil), int_arg(1)},
                                   impl);
  if (!time_kernel(state, pk, err)) return;
  const Tensor& y = pk.output();
  const double flops = 2.0 * static_cast<double>(y.numel()) * static_cast<double>(c * k * k);
  state.counters["FLOP/s"] =
      benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Conv2dOneDnn(benchmark::State& s) { run_conv(s, kernels::KernelImpl::kOptimized); }
void BM_Conv2dReference(benchmark::State& s) { run_conv(s, kernels::KernelImpl::kReference); }

BENCHMARK(BM_Conv2dOneDnn)
    ->Args({1, 3, 224, 64, 7, 2})    // stem
    ->Args({1, 64, 56, 64, 3, 1})    // layer1
    ->Args({1, 128, 28, 128, 3, 1})  // layer2
    ->Args({1, 256, 14, 256, 3, 1})  // layer3
    ->Args({1, 512, 7, 512, 3, 1})   // layer4
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_Conv2dReference)
    ->Args({1, 64, 56, 64, 3, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
