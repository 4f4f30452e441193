// The oneDNN CPU engine and streams that the optimized kernels use, owned by the CPU device
// that runs them (runtime/devices/device.h hands its OnednnContext to every KernelCall), and the
// edge where oneDNN errors (C status codes and dnnl::error exceptions) become tir Status.
//
// Engines are made by the device at creation, never in `run`. Streams are per thread and per
// context, so sessions running on different threads never share one. oneDNN here uses the
// OpenMP runtime: its thread count follows omp_set_num_threads / OMP_NUM_THREADS.
#pragma once

#include <atomic>
#include <cstdint>
#include <oneapi/dnnl/dnnl.hpp>
#include <span>

#include "kernels/cpu/cpu_context.h"
#include "kernels/kernel.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {

class OnednnContext final : public DeviceContext {
 public:
  OnednnContext();
  dnnl::engine& engine() { return engine_; }
  /// The calling thread's in-order stream on this context's engine.
  dnnl::stream& stream();

 private:
  dnnl::engine engine_;
  uint64_t id_;  // unique per process
  static inline std::atomic<uint64_t> next_id_{0};
};

/// The context of the device running `call`, or (a kernel called outside a session, as the
/// kernel tests do, or on a device without oneDNN) one shared default context.
OnednnContext& onednn_context(const KernelCall& call);
inline dnnl::engine& onednn_engine(const KernelCall& call) { return onednn_context(call).engine(); }

/// Executes `prim` with `args` on this thread's stream of the call's context and waits. Uses
/// the C API so that no argument map is allocated per call.
Status onednn_execute(const KernelCall& call, const dnnl::primitive& prim,
                      std::span<const dnnl_exec_arg_t> args);

/// Runs `f` (returning Status) and turns a dnnl::error into kInternal naming the node.
template <typename F>
Status onednn_guard(const KernelCall& call, F&& f) {
  try {
    return f();
  } catch (const dnnl::error& e) {
    return op_error(call, StatusCode::kInternal, "oneDNN: ", e.what());
  }
}

/// True where oneDNN computes bf16 natively (AVX512-BF16, AMX), or emulates it on AVX-512
/// when TIR_BF16_EMULATED=1 (to test the bf16 paths there). Follows ONEDNN_MAX_CPU_ISA.
bool onednn_native_bf16();

/// The precision this CPU runs `asked` in: kBFloat16 only where oneDNN computes bf16 natively
/// (AVX512-BF16 or AMX; emulated bf16 is slower than float32; TIR_BF16_EMULATED=1 allows it
/// on plain AVX-512 too, to test the bf16 path there), else kFloat32, said once on stderr. int8
/// runs everywhere (VNNI/AMX make it fast; without them a line says so once).
Precision cpu_precision(Precision asked);

/// True when oneDNN's int8 kernels on this CPU may saturate a u8 x s8 dot product: without
/// VNNI they multiply with vpmaddubsw, which adds each pair of u8 * s8 products into int16
/// with saturation (2 * 255 * 127 = 64770 > 32767; oneDNN's "Nuances of int8 computations"),
/// and for s8 sources they halve the weights instead. Then the dynamic int8 kernels quantize
/// activations to 7 bits (0..127, as fbgemm's reduce_range), and the static quantized linear
/// computes in float32. False only from AVX512-VNNI up (AMX included): oneDNN 2.6's use of
/// AVX-VNNI (avx2_vnni) is not uniform across its int8 kernels, so that CPU counts as
/// saturating (correct there, one bit less of activation precision). Follows
/// ONEDNN_MAX_CPU_ISA, as oneDNN does. Computed once; thread-safe.
bool int8_pairs_saturate();

/// Plain (row-major) f32 memory descriptor.
dnnl::memory::desc onednn_plain_f32(const dnnl::memory::dims& dims);

/// oneDNN's view of a batched f32 activation `t` of shape `dims` as it lies in memory: plain
/// NCHW or channels-last (its strides, runtime/passes/layout.h); an unbatched [C, H, W] one as
/// plain [1, C, H, W].
dnnl::memory::desc onednn_activation_f32(const Tensor& t, const dnnl::memory::dims& dims);

}  // namespace tir::kernels
