#include "kernels/cpu/onednn_context.h"

namespace tir::kernels {

dnnl::engine& onednn_engine() {
  static dnnl::engine engine = [] {
    // No VTune/perf JIT-profiling hooks: with them on, oneDNN's first primitive probes the
    // filesystem for libJitPI.so (~80 failed opens) on every process start.
    dnnl_set_jit_profiling_flags(0);
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

Status onednn_execute(const KernelCall& call, const dnnl::primitive& prim,
                      std::span<const dnnl_exec_arg_t> args) {
  dnnl::stream& s = onednn_stream();
  dnnl_status_t st =
      dnnl_primitive_execute(prim.get(), s.get(), static_cast<int>(args.size()), args.data());
  if (st == dnnl_success) st = dnnl_stream_wait(s.get());
  if (st != dnnl_success) {
    return op_error(call, StatusCode::kInternal, "oneDNN execution failed (status ",
                    static_cast<int>(st), ")");
  }
  return ok_status();
}

dnnl::memory::desc onednn_plain_f32(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size());
  dnnl::memory::dim s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

}  // namespace tir::kernels
