// Helpers shared by every kernel: validated argument accessors, dim normalisation,
// broadcasting, and a tiny kernel template that pairs a shared `prepare` with a `run`.
// Everything here runs in `prepare` (may allocate, returns Status) except the
// `broadcast_for_each` loop, which is allocation-free and used by `run`.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "kernels/kernel.h"

namespace tir::kernels {

/// Error whose message starts with "node '<node>' (<op>): ", the form every runtime error
/// about a node takes; the executor passes kernel errors on unchanged.
template <typename... Parts>
Status op_error(const KernelCall& call, StatusCode code, const Parts&... parts) {
  return make_error(code, "node '", call.node, "' (", call.op, "): ", parts...);
}

/// Checks that the call has `n` outputs (and at least `n_args` args).
Status check_arity(const KernelCall& call, size_t n_args, size_t n_outputs);

/// Required tensor argument at schema position `idx`.
Result<const Tensor*> tensor_arg(const KernelCall& call, size_t idx, std::string_view name);
/// Optional tensor argument (Tensor?): nullptr when None.
Result<const Tensor*> optional_tensor_arg(const KernelCall& call, size_t idx,
                                          std::string_view name);
/// Index into `call.inputs` of the tensor argument at `idx` (after tensor_arg succeeded).
inline int64_t tensor_input_index(const KernelCall& call, size_t idx) { return call.args[idx].i; }

Result<int64_t> int_arg(const KernelCall& call, size_t idx, std::string_view name);
Result<bool> bool_arg(const KernelCall& call, size_t idx, std::string_view name);
/// A float or int argument (ATen `float` and `Scalar`) as double.
Result<double> scalar_arg(const KernelCall& call, size_t idx, std::string_view name);
/// int[]; a single kInt is accepted as a one-element list (the span points into the Arg).
Result<std::span<const int64_t>> ints_arg(const KernelCall& call, size_t idx,
                                          std::string_view name);
/// int[]? : nullopt when None.
Result<std::optional<std::span<const int64_t>>> optional_ints_arg(const KernelCall& call,
                                                                  size_t idx,
                                                                  std::string_view name);

/// ATen int[2] semantics: one value means both dims; empty uses `empty_default` if given.
Result<std::array<int64_t, 2>> expand_param(
    const KernelCall& call, std::span<const int64_t> v, std::string_view name,
    std::optional<std::array<int64_t, 2>> empty_default = std::nullopt);

/// Maps a possibly negative dim into [0, rank); rank 0 accepts -1 and 0 (as ATen does
/// for dims of scalars, with `wrap_scalar`).
Result<int> normalize_dim(const KernelCall& call, int64_t dim, int rank, std::string_view name);

/// Fails with kUnsupported unless `t` is contiguous.
Status require_contiguous(const KernelCall& call, const Tensor& t, std::string_view name);
/// The common first checks of a one-tensor op: `n_args` arguments, argument 0 ("self") a
/// contiguous tensor of a defined dtype. Returns it.
Result<const Tensor*> self_operand(const KernelCall& call, size_t n_args);
/// Fails with kUnsupported unless `t.dtype == dtype`.
Status require_dtype(const KernelCall& call, const Tensor& t, DType dtype, std::string_view name);

/// numpy broadcast of two shapes, or an error naming the op.
Result<std::vector<int64_t>> broadcast_shapes(const KernelCall& call, std::span<const int64_t> a,
                                              std::span<const int64_t> b);

/// Output shape plus each input's element strides in output index space (0 = broadcast).
struct BroadcastPlan {
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> a_strides{};
  std::array<int64_t, kMaxRank> b_strides{};
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= sizes[i];
    return n;
  }
};
/// Plan for contiguous inputs of shapes `a` and `b` broadcast to `out`.
BroadcastPlan make_broadcast_plan(std::span<const int64_t> out, std::span<const int64_t> a,
                                  std::span<const int64_t> b);

/// Calls f(out_index, a_index, b_index) for every output element in row-major order.
template <typename F>
void broadcast_for_each(const BroadcastPlan& p, F&& f) {
  const int64_t total = p.numel();
  if (total == 0) return;
  if (p.rank == 0) {
    f(int64_t{0}, int64_t{0}, int64_t{0});
    return;
  }
  const int last = p.rank - 1;
  const int64_t inner = p.sizes[last];
  const int64_t sa = p.a_strides[last], sb = p.b_strides[last];
  std::array<int64_t, kMaxRank> idx{};
  int64_t a_off = 0, b_off = 0;
  for (int64_t out = 0; out < total; out += inner) {
    for (int64_t j = 0; j < inner; ++j) f(out + j, a_off + j * sa, b_off + j * sb);
    // advance the outer counter (dims 0..last-1)
    for (int d = last - 1; d >= 0; --d) {
      a_off += p.a_strides[d];
      b_off += p.b_strides[d];
      if (++idx[d] < p.sizes[d]) break;
      a_off -= p.a_strides[d] * p.sizes[d];
      b_off -= p.b_strides[d] * p.sizes[d];
      idx[d] = 0;
    }
  }
}

/// Calls f(o, off) for every element o of an array of `sizes` in row-major order, `off` being
/// its offset (in elements) along `strides`: the odometer of a strided view's gather.
template <typename F>
void for_each_strided(int rank, const int64_t* sizes, const int64_t* strides, F&& f) {
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= sizes[d];
  std::array<int64_t, kMaxRank> idx{};
  int64_t off = 0;
  for (int64_t o = 0; o < total; ++o) {
    f(o, off);
    for (int d = rank - 1; d >= 0; --d) {
      off += strides[d];
      if (++idx[d] < sizes[d]) break;
      off -= strides[d] * sizes[d];
      idx[d] = 0;
    }
  }
}

/// Writes `v` as element `i` of the first output (contiguous, of dtype T).
template <typename T>
void store_output(const KernelCall& call, int64_t i, T v) {
  call.outputs[0].data_as<T>()[i] = v;
}

/// Bytes rounded up to 64 so that scratch sub-buffers stay aligned.
inline size_t align64(size_t n) { return (n + 63) & ~size_t{63}; }

/// Product of sizes[begin, end).
inline int64_t prod(std::span<const int64_t> sizes, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end && i < sizes.size(); ++i) n *= sizes[i];
  return n;
}

/// A kernel made of a shared shape/validation function and a run function over the
/// parameters it produced. Keeps reference and optimized kernels on ONE prepare logic.
/// Where the op's catalogue row says its kernels take an epilogue, RunFn applies
/// KernelCall::epilogue (kernels/epilogue.h); where it says an argument may be channels-last,
/// PrepareFn accepts both layouts there and gives outputs[0] channels-last strides when
/// KernelCall::channels_last.
template <typename Params, Result<Params> (*PrepareFn)(const KernelCall&, PrepareInfo*),
          void (*RunFn)(const Params&, const KernelCall&, void*)>
class FnKernel final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(params_, PrepareFn(call, out_info));
    return ok_status();
  }
  Status run(const KernelCall& call, void* scratch) override {
    RunFn(params_, call, scratch);
    return ok_status();
  }

 private:
  Params params_{};
};

/// Like FnKernel, but `run` may fail: for ops whose index values are only known at run
/// time and are range-checked there.
template <typename Params, Result<Params> (*PrepareFn)(const KernelCall&, PrepareInfo*),
          Status (*RunFn)(const Params&, const KernelCall&)>
class CheckedKernel final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(params_, PrepareFn(call, out_info));
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override { return RunFn(params_, call); }

 private:
  Params params_{};
};

/// CheckedKernel for run functions that use the scratch prepare asked for.
template <typename Params, Result<Params> (*PrepareFn)(const KernelCall&, PrepareInfo*),
          Status (*RunFn)(const Params&, const KernelCall&, void*)>
class CheckedScratchKernel final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(params_, PrepareFn(call, out_info));
    return ok_status();
  }
  Status run(const KernelCall& call, void* scratch) override {
    return RunFn(params_, call, scratch);
  }

 private:
  Params params_{};
};

/// Kernel whose output aliases its input: run has nothing to do.
template <typename Params, Result<Params> (*PrepareFn)(const KernelCall&, PrepareInfo*)>
class AliasKernel final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(Params p, PrepareFn(call, out_info));
    (void)p;
    return ok_status();
  }
  Status run(const KernelCall&, void*) override { return ok_status(); }
};

}  // namespace tir::kernels
