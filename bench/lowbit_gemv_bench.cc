// The decode GEMVs of int8 and int4 weights in every ISA variant this CPU runs
// (kernels/cpu/cpu_isa.h), side by side in one process, one thread: the int8 GEMV
// (kernels/cpu/int8/gemv_int8.h, A uint8 0..255 as on a VNNI CPU, and 0..127 as where pairs
// saturate) and the int4 GEMM (kernels/cpu/int4/gemm_int4.h, group 32, symmetric) at m = 1
// (decode) and m = 16 (a prefill chunk). bytes_per_second counts the weight bytes read (int8:
// N * K; int4: N * K / 2 codes + scales), the figure a bandwidth-bound decode is held to.
// range: variant (0 baseline, 1 avx512_vnni), N, K [, m].
// Shapes: Llama-3.2-1B's attention q/o (2048 x 2048) and MLP up (8192 x 2048) and down
// (2048 x 8192).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "core/quantize_int4.h"
#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/int4/gemm_int4.h"
#include "kernels/cpu/int8/gemv_int8.h"

namespace tir::bench {
namespace {

using kernels::CpuIsa;

bool variant_runs(benchmark::State& state, CpuIsa* isa) {
  *isa = static_cast<CpuIsa>(state.range(0));
  if (static_cast<int>(*isa) < kernels::cpu_isa_count()) {
    state.SetLabel(kernels::cpu_isa_name(*isa));
    return true;
  }
  state.SkipWithError("variant not available on this CPU");
  return false;
}

void BM_Int8Gemv(benchmark::State& state, bool a7) {
  CpuIsa isa;
  if (!variant_runs(state, &isa)) return;
  const int64_t n = state.range(1), k = state.range(2);
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> ua(0, a7 ? 127 : 255), ub(-128, 127);
  std::vector<uint8_t> a(static_cast<size_t>(k));
  std::vector<int8_t> b(size_t(n * k));
  std::vector<float> scales(static_cast<size_t>(n), 0.01f), out(static_cast<size_t>(n));
  for (uint8_t& x : a) x = uint8_t(ua(rng));
  for (int8_t& x : b) x = int8_t(ub(rng));
  for (auto _ : state) {
    kernels::int8_gemv(a.data(), b.data(), k, 0, n, scales.data(), a7, isa, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * n * k);
}

void BM_Int4Gemm(benchmark::State& state) {
  CpuIsa isa;
  if (!variant_runs(state, &isa)) return;
  const int64_t n = state.range(1), k = state.range(2), m = state.range(3), group = 32;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> w(size_t(n * k)), a(size_t(m * k)), out(size_t(m * n));
  for (float& x : w) x = d(rng);
  for (float& x : a) x = d(rng);
  std::vector<uint8_t> stored(int4_stored_bytes(n, k, group, false));
  quantize_int4_groups(w.data(), n, k, group, false, stored.data());
  const Int4View view = int4_view(stored.data(), n, k, group, false);
  std::vector<int8_t> qa(size_t(m * k));
  std::vector<float> da(size_t(m * k / 32)), ga(size_t(m * k / group));
  for (int64_t i = 0; i < m; ++i)
    kernels::int4_quantize_row_q8(a.data() + i * k, k, group, qa.data() + i * k,
                                  da.data() + i * k / 32, ga.data() + i * k / group);
  for (auto _ : state) {
    kernels::int4_gemm_q8(view, qa.data(), da.data(), ga.data(), m, 0, n, 1.0f, out.data(), isa);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) *
                          int64_t(n * k / 2 + n * (k / group) * int64_t(sizeof(float))));
}

void Int8Shapes(benchmark::internal::Benchmark* b) {
  for (int v = 0; v < 2; ++v)
    for (const auto& [n, k] : {std::pair<int64_t, int64_t>{2048, 2048}, {8192, 2048}, {2048, 8192}})
      b->Args({v, n, k});
}

void Int4Shapes(benchmark::internal::Benchmark* b) {
  for (int v = 0; v < 2; ++v)
    for (const int64_t m : {1, 16})
      for (const auto& [n, k] :
           {std::pair<int64_t, int64_t>{2048, 2048}, {8192, 2048}, {2048, 8192}})
        b->Args({v, n, k, m});
}

BENCHMARK_CAPTURE(BM_Int8Gemv, a8, false)->Apply(Int8Shapes)->ArgNames({"isa", "n", "k"});
BENCHMARK_CAPTURE(BM_Int8Gemv, a7, true)->Apply(Int8Shapes)->ArgNames({"isa", "n", "k"});
BENCHMARK(BM_Int4Gemm)->Apply(Int4Shapes)->ArgNames({"isa", "n", "k", "m"});

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
