// Cost of switching LoRA adapters between runs: one session over the tiny GPT-2 and Llama of
// tests/data/fixtures/lora with each of their four PEFT adapters loaded twice, as "k" and
// "k'" (the same work, two adapters). "Same/k" repeats adapter k, "Switch/k" alternates k and
// k', "Base" runs none: switch cost per run = Switch/k - Same/k. (Adapter 2 of each family has
// modules_to_save, so its two copies also run on two executors of their own.) "SwitchCost/k"
// measures the same difference interleaved, in thread CPU time (run with OMP_NUM_THREADS=1).
// Fixtures are imported at setup, outside the timed loop; TIR_TEST_DATA overrides where they are.
#include <benchmark/benchmark.h>
#include <time.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/session_util.h"
#include "runtime/weights/npy.h"

namespace tir::bench {
namespace {

struct Loaded {
  std::unique_ptr<Session> session;
  HostTensor input;
  std::vector<std::string> adapters;
  std::string error;
};

Loaded& load(const std::string& family) {
  static std::map<std::string, Loaded> cache;
  Loaded& l = cache[family];
  if (l.session || !l.error.empty()) return l;
  const std::string dir = fixture_root() + "lora/" + family;
  auto s = import_and_open(dir, "lora_" + family);
  if (!s.ok()) return l.error = s.status().message(), l;
  l.session = std::move(s).value();
  std::ifstream in(fixture_root() + "lora/manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  for (const auto& f : manifest["families"]) {
    if (f["family"] != family) continue;
    for (const auto& a : f["adapters"]) {
      const std::string name = a["name"];
      const Status st = l.session->load_adapter(name, dir + "/" + a["dir"].get<std::string>());
      if (!st.ok()) return l.error = st.message(), l;
      const Status twin =
          l.session->load_adapter(name + "'", dir + "/" + a["dir"].get<std::string>());
      if (!twin.ok()) return l.error = twin.message(), l;
      l.adapters.push_back(name);
    }
  }
  if (l.adapters.size() < 4) return l.error = "fewer than 4 adapters in " + dir, l;
  auto x = npy_read(dir + "/input_0.npy");
  if (!x.ok()) return l.error = x.status().message(), l;
  l.input = std::move(x).value();
  return l;
}

/// Runs adapter `which(i)` at step i.
template <typename Which>
void run(benchmark::State& state, const std::string& family, Which which) {
  Loaded& l = load(family);
  if (!l.session) return state.SkipWithError(l.error.c_str());
  const std::vector<Tensor> in = {l.input.view()};
  size_t i = 0;
  for (auto _ : state) {
    auto r = l.session->run(in, which(l, i++));
    if (!r.ok()) return state.SkipWithError(r.status().message().c_str());
  }
}

void BM_Base(benchmark::State& s, const char* family) {
  run(s, family, [](const Loaded&, size_t) { return std::string_view(); });
}
void BM_Same(benchmark::State& s, const char* family) {
  const size_t k = size_t(s.range(0));
  run(s, family, [k](const Loaded& l, size_t) { return std::string_view(l.adapters[k]); });
}
void BM_Switch(benchmark::State& s, const char* family) {
  const size_t k = size_t(s.range(0));
  std::string twin;
  run(s, family, [k, &twin](const Loaded& l, size_t i) {
    if (twin.empty()) twin = l.adapters[k] + "'";
    return i % 2 ? std::string_view(twin) : std::string_view(l.adapters[k]);
  });
}

double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

/// The switch cost itself, measured interleaved so a busy machine affects both sides alike:
/// per iteration, 8 runs of adapter k (one switch, from the block before) then 8 runs
/// alternating k' and k (8 switches), in this thread's CPU time. Counter switch_ns: the median
/// over iterations of (alternating - same) / 7.
void BM_SwitchCost(benchmark::State& state, const char* family) {
  Loaded& l = load(family);
  if (!l.session) return state.SkipWithError(l.error.c_str());
  const size_t k = size_t(state.range(0));
  const std::string a = l.adapters[k], b = a + "'";
  const std::vector<Tensor> in = {l.input.view()};
  std::vector<double> cost;
  for (auto _ : state) {
    double t[3];
    for (int block = 0; block < 2; ++block) {
      t[block] = thread_cpu_ns();
      for (int i = 0; i < 8; ++i)
        if (!l.session->run(in, block == 1 && i % 2 == 0 ? b : a).ok())
          return state.SkipWithError("run failed");
    }
    t[2] = thread_cpu_ns();
    cost.push_back(((t[2] - t[1]) - (t[1] - t[0])) / 7);
  }
  std::sort(cost.begin(), cost.end());
  state.counters["switch_ns"] = cost.empty() ? 0 : cost[cost.size() / 2];
}

BENCHMARK_CAPTURE(BM_SwitchCost, gpt2, "gpt2")->DenseRange(0, 3);
BENCHMARK_CAPTURE(BM_SwitchCost, llama, "llama")->DenseRange(0, 3);
BENCHMARK_CAPTURE(BM_Base, gpt2, "gpt2");
BENCHMARK_CAPTURE(BM_Same, gpt2, "gpt2")->DenseRange(0, 3);
BENCHMARK_CAPTURE(BM_Switch, gpt2, "gpt2")->DenseRange(0, 3);
BENCHMARK_CAPTURE(BM_Base, llama, "llama");
BENCHMARK_CAPTURE(BM_Same, llama, "llama")->DenseRange(0, 3);
BENCHMARK_CAPTURE(BM_Switch, llama, "llama")->DenseRange(0, 3);

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
