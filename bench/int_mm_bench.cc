// The int8 product of torchao's dynamically quantized linears (kernels/cpu/int8/int_mm.cc):
// tir::int_mm_weight (the lowered form: the int8 weight packed once at prepare) against
// aten::_int_mm as exported (the weight a t() view, known only at run, widened or read on every
// run), the reference kernel (plain loops) and a float32 aten::linear of the same shape.
// range: m, k, n, threads. Shapes: Llama-3.2-1B's attention q/o (2048 -> 2048) and MLP up
// (2048 -> 8192) at one token (decode) and 64 (prefill); the reference at a smaller shape.
#include <omp.h>

#include <random>

#include "bench/bench_util.h"

namespace tir::bench {
namespace {

class IntMmCall {
 public:
  /// A int8 [m, k], W int8 [n, k]; `weight_form`: tir::int_mm_weight(A, W) with W's bytes at
  /// prepare, else aten::_int_mm(A, W^T view) with B's bytes only at run.
  std::string setup(int64_t m, int64_t k, int64_t n, bool weight_form, kernels::KernelImpl impl) {
    std::mt19937 rng(1);
    std::uniform_int_distribution<int> d(-128, 127);
    a_.resize(size_t(m * k));
    w_.resize(size_t(n * k));
    for (int8_t& v : a_) v = int8_t(d(rng));
    for (int8_t& v : w_) v = int8_t(d(rng));
    inputs_.resize(2);
    inputs_[0].dtype = inputs_[1].dtype = DType::kInt8;
    inputs_[0].set_shape({m, k});
    inputs_[1].set_shape({n, k});
    if (!weight_form) {  // the t() view: [k, n], strides (1, k)
      inputs_[1].sizes[0] = k;
      inputs_[1].sizes[1] = n;
      inputs_[1].strides[0] = 1;
      inputs_[1].strides[1] = k;
    }
    op_ = weight_form ? "tir::int_mm_weight" : "aten::_int_mm";
    args_ = {tensor_arg(0), tensor_arg(1)};
    const kernels::KernelEntry* e =
        kernels::KernelRegistry::global().find_exact(op_, DeviceType::kCpu, DType::kInt8, impl);
    if (!e) return "no kernel for " + op_;
    kernel_ = e->factory();
    if (weight_form) inputs_[1].data = w_.data();  // a weight: its bytes at prepare
    outputs_.resize(1);
    kernels::PrepareInfo info;
    const Status s = kernel_->prepare(call(), &info);
    if (!s.ok()) return s.message();
    inputs_[0].data = a_.data();
    inputs_[1].data = w_.data();
    out_.resize(size_t(m * n));
    outputs_[0].data = out_.data();
    scratch_.resize(info.scratch_bytes / 8 + 16);
    return "";
  }
  bool run() { return kernel_->run(call(), scratch_.data()).ok(); }

 private:
  kernels::KernelCall call() { return {op_, "bench", args_, inputs_, outputs_}; }
  std::string op_;
  std::vector<kernels::Arg> args_;
  std::vector<int8_t> a_, w_;
  std::vector<int32_t> out_;
  std::vector<uint64_t> scratch_;
  std::vector<Tensor> inputs_, outputs_;
  std::unique_ptr<kernels::Kernel> kernel_;
};

void run_int_mm(benchmark::State& state, bool weight_form, kernels::KernelImpl impl) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  omp_set_num_threads(static_cast<int>(state.range(3)));  // before oneDNN plans the primitive
  IntMmCall c;
  const std::string err = c.setup(m, k, n, weight_form, impl);
  if (!err.empty()) {
    state.SkipWithError(err.c_str());
    return;
  }
  for (auto _ : state)
    if (!c.run()) {
      state.SkipWithError("run failed");
      return;
    }
  state.counters["OP/s"] = benchmark::Counter(static_cast<double>(2 * m * k * n),
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void BM_IntMmWeight(benchmark::State& s) { run_int_mm(s, true, kernels::KernelImpl::kOptimized); }
void BM_IntMmAtRun(benchmark::State& s) { run_int_mm(s, false, kernels::KernelImpl::kOptimized); }
void BM_IntMmReference(benchmark::State& s) {
  run_int_mm(s, false, kernels::KernelImpl::kReference);
}

void BM_LinearF32(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  omp_set_num_threads(static_cast<int>(state.range(3)));
  PreparedKernel pk;
  const std::string err =
      pk.setup("aten::linear", {{m, k}, {n, k}}, {tensor_arg(0), tensor_arg(1), none_arg()},
               kernels::KernelImpl::kOptimized);
  if (!time_kernel(state, pk, err)) return;
  state.counters["OP/s"] = benchmark::Counter(static_cast<double>(2 * m * k * n),
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgsProduct({{1, 64}, {2048}, {2048}, {2}})
      ->ArgsProduct({{1, 64}, {2048}, {8192}, {2}})
      ->Args({64, 512, 512, 2})
      ->ArgNames({"m", "k", "n", "threads"})
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();
}
BENCHMARK(BM_IntMmWeight)->Apply(shapes);
BENCHMARK(BM_IntMmAtRun)->Apply(shapes);
BENCHMARK(BM_LinearF32)->Apply(shapes);
BENCHMARK(BM_IntMmReference)
    ->Args({64, 512, 512, 2})
    ->Args({64, 2048, 2048, 2})
    ->ArgNames({"m", "k", "n", "threads"})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace tir::bench

BENCHMARK_MAIN();
