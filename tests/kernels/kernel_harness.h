// Test harness for kernels: builds a KernelCall from owned tensors and args, runs
// prepare (inputs without data, as the runtime does for activations, unless asked),
// allocates outputs (sharing the input's bytes where the kernel reports an alias), runs,
// and returns the outputs (plain copies of those the kernel wrote channels-last). Also:
// channels-last inputs, seeded randomness and tolerance comparison.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace tir::kernels::testing {

/// A tensor that owns its bytes (64-byte aligned): contiguous, or channels-last when made by
/// `channels_last()` (copies keep the layout).
class Buffer {
 public:
  Buffer() = default;
  Buffer(DType dtype, std::vector<int64_t> shape) {
    t_.dtype = dtype;
    t_.set_shape(shape);
    words_.assign((t_.nbytes() + 63) / 8 + 8, 0);
    t_.data = aligned();
  }
  Buffer(const Buffer& o)
      : Buffer(o.t_.dtype, {o.t_.sizes.begin(), o.t_.sizes.begin() + o.t_.rank}) {
    t_.strides = o.t_.strides;
    std::memcpy(t_.data, o.t_.data, t_.nbytes());
  }
  Buffer& operator=(const Buffer& o) {
    Buffer tmp(o);
    std::swap(t_, tmp.t_);
    std::swap(words_, tmp.words_);
    t_.data = aligned();
    return *this;
  }
  static Buffer f32(std::vector<int64_t> shape, const std::vector<float>& v = {}) {
    Buffer b(DType::kFloat32, std::move(shape));
    if (!v.empty()) std::memcpy(b.t_.data, v.data(), std::min(v.size() * 4, b.t_.nbytes()));
    return b;
  }
  static Buffer i64(std::vector<int64_t> shape, const std::vector<int64_t>& v = {}) {
    Buffer b(DType::kInt64, std::move(shape));
    if (!v.empty()) std::memcpy(b.t_.data, v.data(), std::min(v.size() * 8, b.t_.nbytes()));
    return b;
  }
  /// Uniform values in [lo, hi).
  static Buffer random(std::mt19937& rng, std::vector<int64_t> shape, float lo = -1.f,
                       float hi = 1.f) {
    Buffer b = f32(std::move(shape));
    std::uniform_real_distribution<float> d(lo, hi);
    for (float& x : b.span<float>()) x = d(rng);
    return b;
  }

  /// The same 4-D values stored N, H, W, C, the strides saying so (this one contiguous).
  Buffer channels_last() const {
    Buffer out(*this);
    out.t_.set_channels_last_strides();
    copy_strided(t_, out.t_);
    return out;
  }
  /// A contiguous copy of `t` (any strides, same dtype and shape).
  static Buffer plain(const Tensor& t) {
    Buffer out(t.dtype, {t.sizes.begin(), t.sizes.begin() + t.rank});
    copy_strided(t, out.t_);
    return out;
  }

  const Tensor& tensor() const { return t_; }
  /// The 2-D transpose over the same bytes: sizes and strides swapped, element (i, j) is this
  /// one's (j, i) (a `t()` view, as torch passes one to a kernel).
  Buffer transposed() const {
    Buffer out(*this);
    std::swap(out.t_.sizes[0], out.t_.sizes[1]);
    std::swap(out.t_.strides[0], out.t_.strides[1]);
    return out;
  }
  std::vector<int64_t> shape() const { return {t_.sizes.begin(), t_.sizes.begin() + t_.rank}; }
  template <typename T>
  std::span<T> span() const {
    return {static_cast<T*>(t_.data), static_cast<size_t>(t_.numel())};
  }
  template <typename T>
  T at(int64_t i) const {
    return static_cast<const T*>(t_.data)[i];
  }

 private:
  // to[i] = from[i] for every index i, each through its own strides.
  static void copy_strided(const Tensor& from, const Tensor& to) {
    const size_t elem = dtype_size(from.dtype);
    const int64_t n = from.numel();
    std::array<int64_t, kMaxRank> idx{};
    for (int64_t k = 0; k < n; ++k) {
      int64_t f = 0, t = 0;
      for (int d = 0; d < from.rank; ++d) {
        f += idx[d] * from.strides[d];
        t += idx[d] * to.strides[d];
      }
      std::memcpy(static_cast<char*>(to.data) + t * elem,
                  static_cast<const char*>(from.data) + f * elem, elem);
      for (int d = from.rank - 1; d >= 0 && ++idx[d] == from.sizes[d]; --d) idx[d] = 0;
    }
  }
  void* aligned() {
    auto p = reinterpret_cast<uintptr_t>(words_.data());
    return reinterpret_cast<void*>((p + 63) & ~uintptr_t{63});
  }
  Tensor t_;
  std::vector<uint64_t> words_;
};

/// Arguments of one call, in schema order.
class CallBuilder {
 public:
  explicit CallBuilder(std::string op) : op_(std::move(op)) {}
  CallBuilder& tensor(const Buffer& b) {
    Arg a;
    a.kind = ArgKind::kTensor;
    a.i = static_cast<int64_t>(inputs_.size());
    inputs_.push_back(b);
    args_.push_back(a);
    return *this;
  }
  /// A Tensor[] / Tensor?[] argument; a null entry is None.
  CallBuilder& tensors(const std::vector<const Buffer*>& list) {
    std::vector<int64_t> idx;
    for (const Buffer* b : list) {
      idx.push_back(b ? static_cast<int64_t>(inputs_.size()) : -1);
      if (b) inputs_.push_back(*b);
    }
    lists_.push_back(std::move(idx));
    Arg a;
    a.kind = ArgKind::kTensors;
    a.ints = lists_.back();
    args_.push_back(a);
    return *this;
  }
  CallBuilder& none() { return push(ArgKind::kNone, 0, 0); }
  CallBuilder& i(int64_t v) { return push(ArgKind::kInt, v, 0); }
  CallBuilder& f(double v) { return push(ArgKind::kFloat, 0, v); }
  CallBuilder& b(bool v) { return push(ArgKind::kBool, v ? 1 : 0, 0); }
  CallBuilder& dtype(DType d) { return push(ArgKind::kDType, static_cast<int64_t>(d), 0); }
  /// A str argument; `v` must outlive the builder (pass a literal).
  CallBuilder& str(std::string_view v) {
    push(ArgKind::kString, 0, 0);
    args_.back().s = v;
    return *this;
  }
  /// A Device argument of type `type` ("cpu"); `type` must outlive the builder.
  CallBuilder& device(std::string_view type) {
    push(ArgKind::kDevice, -1, 0);
    args_.back().s = type;
    return *this;
  }
  CallBuilder& ints(std::vector<int64_t> v) {
    lists_.push_back(std::move(v));
    Arg a;
    a.kind = ArgKind::kInts;
    a.ints = lists_.back();
    args_.push_back(a);
    return *this;
  }
  /// Names the last argument (a custom or torchao op's kernel reads its arguments by name);
  /// `n` must outlive the builder (pass a literal).
  CallBuilder& named(std::string_view n) {
    args_.back().name = n;
    return *this;
  }
  const std::string& op() const { return op_; }
  const std::vector<Buffer>& inputs() const { return inputs_; }
  const std::vector<Arg>& args() const { return args_; }

 private:
  CallBuilder& push(ArgKind k, int64_t i, double f) {
    Arg a;
    a.kind = k;
    a.i = i;
    a.f = f;
    args_.push_back(a);
    return *this;
  }
  std::string op_;
  std::vector<Buffer> inputs_;
  std::vector<Arg> args_;
  std::deque<std::vector<int64_t>> lists_;
};

struct RunOptions {
  KernelImpl impl = KernelImpl::kReference;
  int n_outputs = 1;
  bool data_at_prepare = false;  // give inputs their bytes during prepare (like weights)
  int repeat_runs = 1;
  std::optional<ops::UnaryKind> epilogue;     // KernelCall::epilogue (fused producers)
  bool channels_last = false;                 // KernelCall::channels_last
  Precision precision = Precision::kFloat32;  // KernelCall::precision
  RandomStream* random = nullptr;             // KernelCall::random
  /// Per input: its quantized storage (KernelCall::weights->input_quantized), as the runtime
  /// binds a weight stored int8 / int4; empty: none.
  std::vector<const QuantizedWeight*> input_quantized;
};

struct RunResult {
  Status status;  // first failure (lookup, prepare or run)
  PrepareInfo info;
  std::vector<Buffer> outputs;  // contiguous, whatever layout the kernel wrote
  std::vector<Tensor> layouts;  // each output as prepare described it (its strides)
  bool aliased(int k) const { return info.output_alias[k] >= 0; }
};

/// Looks up (op, cpu, dtype of the first tensor input or "any", impl) and runs it.
inline RunResult run_kernel(const CallBuilder& cb, const RunOptions& opt = {}) {
  RunResult r;
  std::vector<Buffer> inputs = cb.inputs();
  const DType key = inputs.empty() ? DType::kUndefined : inputs[0].tensor().dtype;
  const KernelRegistry& reg = KernelRegistry::global();
  const KernelEntry* e = reg.find_exact(cb.op(), DeviceType::kCpu, key, opt.impl);
  if (!e) e = reg.find_exact(cb.op(), DeviceType::kCpu, DType::kUndefined, opt.impl);
  if (!e) {
    r.status = Status(StatusCode::kNotFound, "no kernel for " + cb.op());
    return r;
  }
  std::unique_ptr<Kernel> k = e->factory();
  std::vector<Tensor> in_t;
  for (const Buffer& b : inputs) {
    in_t.push_back(b.tensor());
    if (!opt.data_at_prepare) in_t.back().data = nullptr;
  }
  std::vector<Tensor> out_t(opt.n_outputs);
  KernelCall call{cb.op(), "test_node", cb.args(), in_t, out_t};
  call.epilogue = opt.epilogue;
  call.channels_last = opt.channels_last;
  call.precision = opt.precision;
  call.random = opt.random;
  WeightServices services;
  services.input_quantized = opt.input_quantized;
  if (!opt.input_quantized.empty()) call.weights = &services;
  r.status = k->prepare(call, &r.info);
  if (!r.status.ok()) return r;
  r.layouts = out_t;
  for (size_t i = 0; i < in_t.size(); ++i) in_t[i].data = inputs[i].tensor().data;
  std::vector<Buffer> owned;
  owned.reserve(opt.n_outputs);  // out_t points into these
  for (int o = 0; o < opt.n_outputs; ++o) {
    owned.emplace_back(
        out_t[o].dtype,
        std::vector<int64_t>(out_t[o].sizes.begin(), out_t[o].sizes.begin() + out_t[o].rank));
    const int a = r.info.output_alias[o];
    out_t[o].data = a >= 0 ? in_t[a].data : owned.back().tensor().data;
  }
  std::vector<uint64_t> scratch((r.info.scratch_bytes + 127) / 8);
  void* s =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  for (int rep = 0; rep < opt.repeat_runs && r.status.ok(); ++rep) r.status = k->run(call, s);
  for (int o = 0; o < opt.n_outputs; ++o) {
    if (r.info.output_alias[o] >= 0) {
      std::memcpy(owned[o].tensor().data, out_t[o].data, owned[o].tensor().nbytes());
    } else if (!out_t[o].is_contiguous()) {
      owned[o] = Buffer::plain(out_t[o]);
    }
  }
  r.outputs = std::move(owned);
  return r;
}

/// The seed for this test: TIR_TEST_SEED if set, else a fixed default. Printed and
/// recorded so a failure can be replayed.
inline uint32_t test_seed() {
  uint32_t seed = 20240611;
  if (const char* env = std::getenv("TIR_TEST_SEED"))
    seed = static_cast<uint32_t>(std::strtoul(env, nullptr, 10));
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  std::cout << "[ seed     ] TIR_TEST_SEED=" << seed << "\n";
  return seed;
}

/// |got - want| <= atol + rtol * |want| elementwise (NaN matches NaN), same dtype and shape.
inline ::testing::AssertionResult all_close(const Buffer& got, const Buffer& want, double rtol,
                                            double atol) {
  if (got.tensor().dtype != want.tensor().dtype || got.shape() != want.shape()) {
    return ::testing::AssertionFailure()
           << "shape/dtype differ: " << shape_str(got.tensor().shape()) << " "
           << dtype_name(got.tensor().dtype) << " vs " << shape_str(want.tensor().shape()) << " "
           << dtype_name(want.tensor().dtype);
  }
  const int64_t n = got.tensor().numel();
  const bool is_i64 = got.tensor().dtype == DType::kInt64;
  for (int64_t i = 0; i < n; ++i) {
    const double g = is_i64 ? static_cast<double>(got.at<int64_t>(i)) : got.at<float>(i);
    const double w = is_i64 ? static_cast<double>(want.at<int64_t>(i)) : want.at<float>(i);
    if (std::isnan(g) && std::isnan(w)) continue;
    if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
      return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", want " << w
                                           << " (rtol " << rtol << ", atol " << atol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

/// Runs reference and optimized on the same call and compares every output.
inline void expect_opt_matches_ref(const CallBuilder& cb, double rtol, double atol,
                                   int n_outputs = 1, bool data_at_prepare = false) {
  RunOptions ro{KernelImpl::kReference, n_outputs, false, 1};
  RunOptions oo{KernelImpl::kOptimized, n_outputs, data_at_prepare, 2};
  RunResult ref = run_kernel(cb, ro);
  RunResult opt = run_kernel(cb, oo);
  ASSERT_TRUE(ref.status.ok()) << ref.status.message();
  ASSERT_TRUE(opt.status.ok()) << opt.status.message();
  for (int o = 0; o < n_outputs; ++o) {
    EXPECT_TRUE(all_close(opt.outputs[o], ref.outputs[o], rtol, atol))
        << cb.op() << " output " << o;
  }
}

inline std::string shape_of(const Buffer& b) { return shape_str(b.tensor().shape()); }

/// A uniform random integer in [lo, hi].
inline int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

/// A float32 buffer of `shape` holding 0, 1, 2, ... in memory order.
inline Buffer iota(std::vector<int64_t> shape) {
  Buffer b = Buffer::f32(std::move(shape));
  float v = 0;
  for (float& x : b.span<float>()) x = v++;
  return b;
}

}  // namespace tir::kernels::testing
