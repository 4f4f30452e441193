// Shared fixture code for kernel benchmarks: owns inputs, prepares the optimized kernel
// once (outside the timed loop) and exposes a `run` for the loop body.
#pragma once

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace tir::bench {

class PreparedKernel {
 public:
  /// Returns an error message, or "" when the kernel is ready to run.
  std::string setup(std::string op, std::vector<std::vector<int64_t>> input_shapes,
                    std::vector<kernels::Arg> args, kernels::KernelImpl impl) {
    op_ = std::move(op);
    args_ = std::move(args);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> d(-1.f, 1.f);
    for (auto& s : input_shapes) {
      Tensor t;
      t.dtype = DType::kFloat32;
      t.set_shape(s);
      store_.emplace_back(t.numel());
      for (float& v : store_.back()) v = d(rng);
      t.data = store_.back().data();
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

 private:
  kernels::KernelCall call() { return {op_, "bench", args_, inputs_, outputs_}; }
  std::string op_;
  std::vector<kernels::Arg> args_;
  std::vector<std::vector<float>> store_;
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

}  // namespace tir::bench
