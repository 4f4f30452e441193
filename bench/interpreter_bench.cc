// Interpreter overhead per node: a torch-exported chain of 200 tiny element-wise ops
// (tests/data/fixtures/chain: x + 1, x * 0.5 alternating on an [8] float tensor, written
// by tests/data/gen_chain.py), run through Session. The kernels do 8 flops each, so the run
// time is the interpreter's: "time/node" = run time / nodes of the model (Session::run's
// input checks included); "kernel_calls" per run shows whether every node ran its own kernel.
// "Profiled" runs the same with a Profiler set and also reports the share of the run spent outside
// the kernels' own run calls. The output is checked against torch's before timing. TIR_TEST_DATA
// overrides where the fixtures are.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "bench/session_util.h"
#include "runtime/exec/profiler.h"
#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"

namespace tir::bench {
namespace {

struct Chain {
  std::unique_ptr<Session> session;
  HostTensor input;
  std::string error;
};

Chain load(const std::string& dialect) {
  const std::string dir = bench::fixture_root() + "chain/add_mul/" + dialect;
  Chain c;
  auto s = bench::import_and_open(dir, "chain_" + dialect);
  if (!s.ok()) return {nullptr, {}, s.status().message()};
  auto in = npy_read(dir + "/input_0.npy");
  auto want = npy_read(dir + "/output_0.npy");
  if (!in.ok() || !want.ok()) return {nullptr, {}, "cannot read the fixture's .npy files"};
  c.session = std::move(s).value();
  c.input = std::move(in).value();
  const Tensor x = c.input.view();
  auto out = c.session->run({&x, 1});
  if (!out.ok()) return {nullptr, {}, out.status().message()};
  const Tensor& got = (*out)[0];
  const Tensor w = want->view();
  if (got.numel() != w.numel()) return {nullptr, {}, "output size differs from torch's"};
  for (int64_t i = 0; i < w.numel(); ++i) {
    const float a = got.data_as<const float>()[i], b = w.data_as<const float>()[i];
    if (!(std::abs(a - b) <= 1e-6f + 1e-6f * std::abs(b))) {
      return {nullptr, {}, "output differs from torch's at element " + std::to_string(i)};
    }
  }
  return c;
}

void run_chain(benchmark::State& state, const std::string& dialect, bool profiled) {
  Chain c = load(dialect);
  if (!c.session) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  Profiler profiler;
  if (profiled) {
    if (Status s = c.session->set_profiler(&profiler); !s.ok()) {
      state.SkipWithError(s.message().c_str());
      return;
    }
  }
  const Tensor x = c.input.view();
  const uint64_t calls0 = c.session->kernel_calls();
  for (auto _ : state) {
    auto r = c.session->run({&x, 1});
    if (!r.ok()) {
      state.SkipWithError(r.status().message().c_str());
      return;
    }
    if (profiled && profiler.events().size() > (1u << 20)) {
      state.PauseTiming();
      profiler.clear();
      state.ResumeTiming();
    }
  }
  const double nodes = static_cast<double>(c.session->num_nodes());
  state.counters["nodes"] = nodes;
  // 200 unless a load-time pass (fusion) merged nodes; time/node still divides by `nodes`.
  state.counters["kernel_calls"] = static_cast<double>(c.session->kernel_calls() - calls0) /
                                   static_cast<double>(state.iterations());
  state.counters["time/node"] = benchmark::Counter(
      nodes, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  if (profiled && profiler.run_ms() > 0) {
    state.counters["outside_kernels"] = 1.0 - profiler.node_ms() / profiler.run_ms();
  }
  if (profiled) (void)c.session->set_profiler(nullptr);  // unsetting cannot fail
}

void BM_Chain_training(benchmark::State& s) { run_chain(s, "training", false); }
void BM_Chain_core(benchmark::State& s) { run_chain(s, "core", false); }
void BM_Chain_training_Profiled(benchmark::State& s) { run_chain(s, "training", true); }
BENCHMARK(BM_Chain_training)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Chain_core)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_Chain_training_Profiled)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
