// The oneDNN CPU engine and streams used by the optimized kernels, and the edge where
// oneDNN errors (C status codes and dnnl::error exceptions) become tir Status.
//
// The engine is created once per process on first use (in some kernel's `prepare`, never
// in `run`). Streams are per thread, so sessions running on different threads never share
// one. oneDNN here uses the OpenMP runtime: its thread count follows omp_set_num_threads /
// OMP_NUM_THREADS.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>
#include <span>

#include "kernels/kernel.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {

/// The process-wide CPU engine. Thread-safe.
dnnl::engine& onednn_engine();
/// This thread's in-order CPU stream on `onednn_engine()`.
dnnl::stream& onednn_stream();

/// Executes `prim` with `args` on this thread's stream and waits. Uses the C API so that
/// no argument map is allocated per call.
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

/// Plain (row-major) f32 memory descriptor.
dnnl::memory::desc onednn_plain_f32(const dnnl::memory::dims& dims);

/// Bytes rounded up to 64 so that scratch sub-buffers stay aligned.
inline size_t align64(size_t n) { return (n + 63) & ~size_t{63}; }

}  // namespace tir::kernels
