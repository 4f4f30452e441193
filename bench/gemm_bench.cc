// aten::linear with GPT-2-small shapes (M tokens x K -> N), optimized and reference.
#include "bench/bench_util.h"

namespace tir::bench {
namespace {

void run_linear(benchmark::State& state, kernels::KernelImpl impl) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  PreparedKernel pk;
  const std::string err = pk.setup("aten::linear", {{m, k}, {n, k}, {n}},
                                   {tensor_arg(0), tensor_arg(1), tensor_arg(2)}, impl);
  if (!time_kernel(state, pk, err)) return;
  state.counters["FLOP/s"] = benchmark::Counter(static_cast<double>(2 * m * k * n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void BM_LinearOneDnn(benchmark::State& s) { run_linear(s, kernels::KernelImpl::kOptimized); }
void BM_LinearReference(benchmark::State& s) { run_linear(s, kernels::KernelImpl::kReference); }

// attention qkv/proj (768 -> 768), MLP up (768 -> 3072), MLP down (3072 -> 768)
BENCHMARK(BM_LinearOneDnn)
    ->Args({128, 768, 768})
    ->Args({128, 768, 3072})
    ->Args({128, 3072, 768})
    ->Args({1, 768, 3072})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_LinearReference)->Args({128, 768, 768})->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
