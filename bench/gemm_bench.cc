// aten::linear with GPT-2-small shapes (M tokens x K -> N), optimized and reference, at 1
// and 2 OpenMP threads, and the machine's peak to compare with: a large square GEMM through
// the same oneDNN kernel and an AVX-512 FMA loop (BM_PeakFma, no memory traffic at all).
#include <immintrin.h>
#include <omp.h>

#include <thread>

#include "bench/bench_util.h"

namespace tir::bench {
namespace {

// range: m, k, n, threads
void run_linear(benchmark::State& state, kernels::KernelImpl impl) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  omp_set_num_threads(static_cast<int>(state.range(3)));  // before oneDNN plans the primitive
  PreparedKernel pk;
  const std::string err = pk.setup("aten::linear", {{m, k}, {n, k}, {n}},
                                   {tensor_arg(0), tensor_arg(1), tensor_arg(2)}, impl);
  if (!time_kernel(state, pk, err)) return;
  state.counters["FLOP/s"] = benchmark::Counter(static_cast<double>(2 * m * k * n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void BM_LinearOneDnn(benchmark::State& s) { run_linear(s, kernels::KernelImpl::kOptimized); }
void BM_LinearReference(benchmark::State& s) { run_linear(s, kernels::KernelImpl::kReference); }

// attention qkv/proj (768 -> 768), MLP up (768 -> 3072), MLP down (3072 -> 768), one token;
// 2048^3: the peak a large GEMM reaches through the same kernel.
BENCHMARK(BM_LinearOneDnn)
    ->ArgsProduct({{128}, {768}, {768}, {1, 2}})
    ->ArgsProduct({{128}, {768}, {3072}, {1, 2}})
    ->ArgsProduct({{128}, {3072}, {768}, {1, 2}})
    ->ArgsProduct({{1}, {768}, {3072}, {1, 2}})
    ->ArgsProduct({{2048}, {2048}, {2048}, {1, 2}})
    // A Llama-3.2-1B-shaped prefill of 64 tokens: MLP up/gate, down, attention q/o, k/v.
    ->ArgsProduct({{64}, {2048}, {8192}, {2}})
    ->ArgsProduct({{64}, {8192}, {2048}, {2}})
    ->ArgsProduct({{64}, {2048}, {2048}, {2}})
    ->ArgsProduct({{64}, {2048}, {512}, {2}})
    ->ArgNames({"m", "k", "n", "threads"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_LinearReference)
    ->Args({128, 768, 768, 1})
    ->ArgNames({"m", "k", "n", "threads"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// A half-precision program's linear (float32 activations, a float16/bfloat16 weight read as
// stored: kernels/cpu/onednn/gemm_half_weight.h) beside the float32 weight, GPT-2 small's MLP
// up shape and Llama-1B's MLP down shape: one token (decode: bound by reading the weight) and
// 128 (prefill: the weight widened tile by tile). range: m, k, n, threads, weight dtype.
void BM_LinearWeightDtype(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  omp_set_num_threads(static_cast<int>(state.range(3)));
  const auto dtype = static_cast<DType>(state.range(4));
  PreparedKernel pk;
  const std::string err =
      pk.setup("aten::linear", {{m, k}, {n, k}, {n}}, {tensor_arg(0), tensor_arg(1), tensor_arg(2)},
               kernels::KernelImpl::kOptimized, {}, {1, dtype});
  if (!time_kernel(state, pk, err)) return;
  state.counters["weight_B/s"] = benchmark::Counter(static_cast<double>(n * k * dtype_size(dtype)),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_LinearWeightDtype)
    ->ArgsProduct({{1, 128},
                   {768},
                   {3072},
                   {1, 2},
                   {int64_t(DType::kFloat32), int64_t(DType::kBFloat16), int64_t(DType::kFloat16)}})
    ->ArgsProduct({{1},
                   {8192},
                   {2048},
                   {1, 2},
                   {int64_t(DType::kFloat32), int64_t(DType::kBFloat16), int64_t(DType::kFloat16)}})
    ->ArgNames({"m", "k", "n", "threads", "dtype"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// kIters rounds of kAcc independent 16-lane FMAs (enough chains to hide the FMA latency on
// two ports); returns a value derived from the accumulators so nothing is optimised away.
constexpr int kAcc = 16;
constexpr int64_t kIters = 1 << 20;
__attribute__((target("avx512f"))) float fma_loop(float seed) {
  __m512 acc[kAcc];
  for (int a = 0; a < kAcc; ++a) acc[a] = _mm512_set1_ps(seed + static_cast<float>(a));
  const __m512 mul = _mm512_set1_ps(0.999999f), add = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < kIters; ++i) {
    for (int a = 0; a < kAcc; ++a) acc[a] = _mm512_fmadd_ps(acc[a], mul, add);
  }
  __m512 sum = acc[0];
  for (int a = 1; a < kAcc; ++a) sum = _mm512_add_ps(sum, acc[a]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

// range: threads, each running one fma_loop per iteration.
void BM_PeakFma(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("no AVX-512");
    return;
  }
  const int threads = static_cast<int>(state.range(0));
  std::vector<float> sums(threads);
  for (auto _ : state) {
    // threads - 1 helpers; the calling thread runs one loop itself (so CPU time is its own).
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back([&sums, t] { sums[t] = fma_loop(t); });
    sums[0] = fma_loop(0);
    for (std::thread& th : pool) th.join();
    benchmark::DoNotOptimize(sums.data());
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * 16 * kAcc * kIters * threads,
                                                benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PeakFma)
    ->Arg(1)
    ->Arg(2)
    ->ArgName("threads")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
