#include "kernels/cpu/onednn/onednn_context.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string_view>

namespace tir::kernels {

namespace {

dnnl::engine make_engine() {
  // No VTune/perf JIT-profiling hooks: with them on, oneDNN's first primitive probes the
  // filesystem for libJitPI.so (~80 failed file opens) on every process start.
  dnnl_set_jit_profiling_flags(0);
  return dnnl::engine(dnnl::engine::kind::cpu, 0);
}

}  // namespace

OnednnContext::OnednnContext() : engine_(make_engine()), id_(next_id_.fetch_add(1) + 1) {}

dnnl::stream& OnednnContext::stream() {
  // A thread meets few contexts (one per CPU device it runs on): a small ring, no lock.
  // Keyed by id, not address: a later context may reuse a destroyed one's address.
  struct Slot {
    uint64_t owner = 0;
    dnnl::stream stream;
  };
  thread_local std::array<Slot, 4> slots;
  thread_local size_t next = 0;
  for (Slot& s : slots)
    if (s.owner == id_) return s.stream;
  Slot& s = slots[next++ % slots.size()];
  s.owner = id_;
  s.stream = dnnl::stream(engine_);
  return s.stream;
}

bool int8_pairs_saturate() {
  static const bool saturate = [] {
    const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    const unsigned vnni = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_vnni);
    return (isa & vnni) != vnni;
  }();
  return saturate;
}

bool onednn_native_bf16() {
  const unsigned isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto has = [&](dnnl::cpu_isa want) {
    return (isa & static_cast<unsigned>(want)) == static_cast<unsigned>(want);
  };
  // TIR_BF16_EMULATED=1: bf16 also on AVX-512 without AVX512-BF16, which oneDNN emulates
  // (slower than float32; for testing the bf16 path on such a CPU).
  static const bool emulated = [] {
    const char* v = std::getenv("TIR_BF16_EMULATED");
    return v != nullptr && std::string_view(v) == "1";
  }();
  return has(dnnl::cpu_isa::avx512_core_bf16) || (emulated && has(dnnl::cpu_isa::avx512_core));
}

Precision cpu_precision(Precision asked) {
  const bool bf16 = onednn_native_bf16();
  static std::once_flag said;
  if (asked == Precision::kBFloat16 && !bf16) {
    std::call_once(said, [] {
      std::fprintf(stderr,
                   "tir: warning: this CPU has no native bf16 (AVX512-BF16 or AMX); bf16 "
                   "was asked for, computing in float32\n");
    });
    return Precision::kFloat32;
  }
  if (asked == Precision::kInt8 && int8_pairs_saturate())
    std::call_once(said, [] {
      std::fprintf(stderr,
                   "tir: warning: this CPU has no AVX512-VNNI or AMX int8 dot product; int8 "
                   "runs on slower instructions, activations quantized to 7 bits\n");
    });
  return asked;
}

OnednnContext& onednn_context(const KernelCall& call) {
  if (auto* own = dynamic_cast<OnednnContext*>(call.context)) return *own;
  static OnednnContext fallback;
  return fallback;
}

std::unique_ptr<DeviceContext> make_cpu_context() { return std::make_unique<OnednnContext>(); }

Status onednn_execute(const KernelCall& call, const dnnl::primitive& prim,
                      std::span<const dnnl_exec_arg_t> args) {
  dnnl::stream& s = onednn_context(call).stream();
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

dnnl::memory::desc onednn_activation_f32(const Tensor& t, const dnnl::memory::dims& dims) {
  if (t.rank != 4) return onednn_plain_f32(dims);
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                            dnnl::memory::dims(t.strides.begin(), t.strides.begin() + 4));
}

}  // namespace tir::kernels
