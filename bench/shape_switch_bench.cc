// Cost of changing input shapes on a dynamic-shape model. Both benchmarks alternate two
// input shapes; "Cached" keeps both plans, "NewPlan" has a one-plan cache so every run
// first builds a plan (kernels prepared, oneDNN primitives created, memory planned).
// Plan build = NewPlan - Cached. "Forward" runs one shape only, for scale (GPT-2 with
// dynamic batch and sequence: cases (batch, seq) = (1, 32) and (3, 17) of gpt2_dyn).
// Models are the committed dynamic fixtures (imported at setup, outside the timed loop);
// TIR_TEST_DATA overrides where the fixtures are.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "bench/session_util.h"
#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"

namespace tir::bench {
namespace {

struct Loaded {
  std::unique_ptr<Session> session;
  std::vector<HostTensor> small, large;  // one input set per shape
  std::string error;
};

/// Imports `model` (a dynamic fixture name) and loads the inputs of cases `a` and `b`.
Loaded load(const std::string& model, size_t max_plans, int a, int b) {
  Loaded l;
  const std::string dir = bench::fixture_root() + "dynamic/" + model + "/training/";
  SessionOptions so;
  so.max_cached_plans = max_plans;
  auto s = bench::import_and_open(dir, model, so);
  if (!s.ok()) return {nullptr, {}, {}, s.status().message()};
  l.session = std::move(s).value();
  for (auto [c, out] : {std::pair{a, &l.small}, std::pair{b, &l.large}}) {
    for (size_t k = 0;; ++k) {
      const std::string f =
          dir + "case_" + std::to_string(c) + "_input_" + std::to_string(k) + ".npy";
      if (!std::filesystem::exists(f)) break;
      auto t = npy_read(f);
      if (!t.ok()) return {nullptr, {}, {}, t.status().message()};
      out->push_back(std::move(t).value());
    }
  }
  return l;
}

std::vector<Tensor> views(const std::vector<HostTensor>& hs) {
  std::vector<Tensor> v;
  for (const HostTensor& h : hs) v.push_back(h.view());
  return v;
}

/// Alternates the inputs of cases `ca` and `cb` (the same case twice: one shape). With
/// `rebuild` the plan cache holds one plan, so every shape change builds a new plan;
/// otherwise both plans stay cached. The difference is the plan cost.
void run_model(benchmark::State& state, const std::string& model, bool rebuild, int ca = 0,
               int cb = 2) {
  Loaded l = load(model, /*max_plans=*/rebuild ? 1 : 8, ca, cb);
  if (!l.session) {
    state.SkipWithError(l.error.c_str());
    return;
  }
  const std::vector<Tensor> a = views(l.small), b = views(l.large);
  bool flip = false;
  for (auto _ : state) {
    auto r = l.session->run(flip ? a : b);
    flip = !flip;
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
  }
}

void BM_Cached_seq8(benchmark::State& s) { run_model(s, "seq8", false); }
void BM_NewPlan_seq8(benchmark::State& s) { run_model(s, "seq8", true); }
void BM_Cached_resnet(benchmark::State& s) { run_model(s, "resnet_dyn", false); }
void BM_NewPlan_resnet(benchmark::State& s) { run_model(s, "resnet_dyn", true); }
void BM_Cached_gpt2(benchmark::State& s) { run_model(s, "gpt2_dyn", false, 0, 3); }
void BM_NewPlan_gpt2(benchmark::State& s) { run_model(s, "gpt2_dyn", true, 0, 3); }
void BM_Forward_gpt2_b1_s32(benchmark::State& s) { run_model(s, "gpt2_dyn", false, 0, 0); }
void BM_Forward_gpt2_b3_s17(benchmark::State& s) { run_model(s, "gpt2_dyn", false, 3, 3); }
BENCHMARK(BM_Cached_seq8)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NewPlan_seq8)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cached_resnet)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NewPlan_resnet)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Cached_gpt2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_NewPlan_gpt2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Forward_gpt2_b1_s32)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Forward_gpt2_b3_s17)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
