// Shared fixture code for kernel benchmarks: owns inputs, prepares the optimized kernel
// once (outside the timed loop) and exposes a `run` for the loop body.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/float16.h"
#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace tir::bench {

class PreparedKernel {
 public:
  /// Returns an error message, or "" when the kernel is ready to run. Inputs are uniform in
  /// [-1, 1], those listed in `positive` in [0.5, 1.5] (variances); input `half.first`, when
  /// given, is stored in float16/bfloat16 `half.second` (a half-precision weight).
  std::string setup(std::string op, std::vector<std::vector<int64_t>> input_shapes,
                    std::vector<kernels::Arg> args, kernels::KernelImpl impl,
                    const std::vector<size_t>& positive = {},
                    std::pair<size_t, DType> half = {SIZE_MAX, DType::kFloat32}) {
    op_ = std::move(op);
    args_ = std::move(args);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    for (auto& s : input_shapes) {
      Tensor t;
      t.dtype = DType::kFloat32;
      t.set_shape(s);
      store_.emplace_back(t.numel());
      const bool pos =
          std::find(positive.begin(), positive.end(), inputs_.size()) != positive.end();
      for (float& v : store_.back()) v = pos ? 1.f + 0.5f * d(rng) : d(rng);
      t.data = store_.back().data();
      if (inputs_.size() == half.first && half.second != DType::kFloat32) {
        std::vector<uint16_t>& bits = half_store_.emplace_back();
        for (float v : store_.back())
          bits.push_back(half.second == DType::kBFloat16 ? float_to_bf16(v) : float_to_fp16(v));
        t.dtype = half.second;
        t.data = bits.data();
      }
      inputs_.push_back(t);
    }
    const kernels::KernelEntry* e =
        kernels::KernelRegistry::global().find_exact(op_, DeviceType::kCpu, DType::kFloat32, impl);
    if (!e) return "no kernel for " + op_;
    kernel_ = e->factory();
    outputs_.resize(1);
    kernels::PrepareInfo info;
    const Status s = kernel_->prepare(call(), &info);
    if (!s.ok()) return s.message();
    out_store_.resize(outputs_[0].numel());
    outputs_[0].data = out_store_.data();
    scratch_.resize(info.scratch_bytes / 4 + 16);
    return "";
  }
  bool run() { return kernel_->run(call(), scratch_.data()).ok(); }
  const Tensor& output() const { return outputs_[0]; }
  /// Bytes of all inputs plus the output: the least memory traffic of one run.
  double bytes_moved() const {
    double b = static_cast<double>(outputs_[0].numel());
    for (const Tensor& t : inputs_) b += static_cast<double>(t.numel());
    return b * sizeof(float);
  }

 private:
  kernels::KernelCall call() { return {op_, "bench", args_, inputs_, outputs_}; }
  std::string op_;
  std::vector<kernels::Arg> args_;
  std::vector<std::vector<float>> store_;
  std::vector<std::vector<uint16_t>> half_store_;
  std::vector<float> out_store_, scratch_;
  std::vector<Tensor> inputs_, outputs_;
  std::unique_ptr<kernels::Kernel> kernel_;
};

inline kernels::Arg tensor_arg(int64_t i) {
  kernels::Arg a;
  a.kind = kernels::ArgKind::kTensor;
  a.i = i;
  return a;
}
inline kernels::Arg none_arg() { return kernels::Arg{}; }
inline kernels::Arg int_arg(int64_t v) {
  kernels::Arg a;
  a.kind = kernels::ArgKind::kInt;
  a.i = v;
  return a;
}
inline kernels::Arg float_arg(double v) {
  kernels::Arg a;
  a.kind = kernels::ArgKind::kFloat;
  a.f = v;
  return a;
}
/// `s` must outlive the Arg.
inline kernels::Arg string_arg(std::string_view s) {
  kernels::Arg a;
  a.kind = kernels::ArgKind::kString;
  a.s = s;
  return a;
}
inline kernels::Arg bool_arg(bool v) {
  kernels::Arg a;
  a.kind = kernels::ArgKind::kBool;
  a.i = v;
  return a;
}
/// `storage` must outlive the Arg.
inline kernels::Arg ints_arg(const std::vector<int64_t>& storage) {
  kernels::Arg a;
  a.kind = kernels::ArgKind::kInts;
  a.ints = storage;
  return a;
}

/// The timed loop shared by every kernel benchmark: skips with `setup_error` when setup
/// failed, else runs `pk` until the state stops. Returns false when the benchmark was skipped.
inline bool time_kernel(benchmark::State& state, PreparedKernel& pk,
                        const std::string& setup_error) {
  if (!setup_error.empty()) {
    state.SkipWithError(setup_error.c_str());
    return false;
  }
  for (auto _ : state) {
    if (!pk.run()) {
      state.SkipWithError("run failed");
      return false;
    }
    benchmark::ClobberMemory();
  }
  return true;
}

/// Sets the "bytes/s" counter from `pk.bytes_moved()` per iteration.
inline void count_bytes(benchmark::State& state, const PreparedKernel& pk) {
  state.counters["bytes/s"] =
      benchmark::Counter(pk.bytes_moved(), benchmark::Counter::kIsIterationInvariantRate);
}

/// One kernel benchmark of a table: `op` on float inputs of `shapes` with `args` (the full
/// schema argument list), optimized and reference. `flops` per run sets a "FLOP/s" counter;
/// 0 counts "bytes/s" (bytes_moved) instead.
struct KernelCase {
  std::string name;  // "add_residual_128x768": benchmark "BM_<name>/opt" and ".../ref"
  std::string op;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<kernels::Arg> args;
  std::vector<size_t> positive = {};  // inputs drawn in [0.5, 1.5] (see PreparedKernel)
  double flops = 0;
};

/// Registers every case twice (optimized, reference), in microseconds of real time.
inline void register_cases(const std::vector<KernelCase>& cases) {
  for (const KernelCase& c : cases) {
    for (auto [suffix, impl] : {std::pair{"/opt", kernels::KernelImpl::kOptimized},
                                std::pair{"/ref", kernels::KernelImpl::kReference}}) {
      const std::string name = "BM_" + c.name + suffix;
      benchmark::RegisterBenchmark(name.c_str(),
                                   [c, impl = impl](benchmark::State& state) {
                                     PreparedKernel pk;
                                     const std::string err =
                                         pk.setup(c.op, c.shapes, c.args, impl, c.positive);
                                     if (!time_kernel(state, pk, err)) return;
                                     if (c.flops > 0) {
                                       state.counters["FLOP/s"] = benchmark::Counter(
                                           c.flops, benchmark::Counter::kIsIterationInvariantRate);
                                     } else {
                                       count_bytes(state, pk);
                                     }
                                   })
          ->Unit(benchmark::kMicrosecond)
          ->UseRealTime();
    }
  }
}

/// main() of a table-driven benchmark file.
inline int run_cases_main(int argc, char** argv, const std::vector<KernelCase>& cases) {
  register_cases(cases);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace tir::bench
