// Which variant of tir's own hand-written CPU kernels runs: one binary for every x86-64 CPU.
//
// The build's baseline (meson option cpu_baseline, x86-64-v3 = AVX2 + FMA + F16C by default) is
// what every file is compiled for. Kernels that gain from wider or newer instructions also have
// variants compiled for those (TIR_TARGET_* on the function, so the rest of the file stays at
// the baseline) and choose among them at run time, once, from cpuid and what the OS saves
// (xgetbv), as oneDNN does for its own kernels:
//   kBaseline     the build's baseline (AVX2 by default);
//   kAvx512Vnni   AVX512 F + BW + VL + DQ + VNNI (vpdpbusd: 64 u8 x s8 products summed into
//                 int32 lanes per instruction, no int16 saturation; Cascade Lake and later
//                 Xeons, AMD Zen 4 and later).
// A level is added with the first kernel that gains from it and a test that runs it (AVX-512
// without VNNI gains little over AVX2 for the memory-bound GEMVs that have variants today;
// AVX512-BF16 and AMX variants wait for a CPU that can run their tests).
// TIR_MAX_CPU_ISA (baseline | avx2 | avx512_vnni) caps the choice, as
// ONEDNN_MAX_CPU_ISA caps oneDNN's (the two are independent): the tests run each variant the
// CPU has against the baseline and the reference kernels. A variant no test has run on a CPU
// that has it stays out of this list (and off).
#pragma once

#include <string>

namespace tir::kernels {

enum class CpuIsa : int { kBaseline = 0, kAvx512Vnni = 1 };

/// What this CPU and OS run (not capped).
CpuIsa detected_cpu_isa();
/// The variant tir's kernels use: detected_cpu_isa() capped by TIR_MAX_CPU_ISA. An
/// unrecognised TIR_MAX_CPU_ISA is said once on stderr and ignored. Computed once; thread-safe.
CpuIsa cpu_isa();
/// "baseline", "avx512_vnni".
const char* cpu_isa_name(CpuIsa isa);
/// Every variant up to cpu_isa(), lowest first (for the tests and the benchmarks).
int cpu_isa_count();

/// One line naming the CPU features tir's kernels and oneDNN care about (AVX2, AVX-512,
/// AVX512-VNNI, AVX512-BF16, AMX) and the variant chosen, for `tirrun --version` and the
/// benchmarks' logs.
std::string cpu_features_line();

}  // namespace tir::kernels

// Function attributes for the variants (GCC and Clang; x86-64 only).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TIR_HAS_ISA_VARIANTS 1
// Around the variants' code: GCC 12's AVX-512 intrinsics (reduce, insert, shuffle) start from
// an uninitialized register, which -W(maybe-)uninitialized reports at every use (GCC bug 105593,
// fixed in GCC 13).
#define TIR_ISA_VARIANTS_BEGIN                                                         \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wuninitialized\"") \
      _Pragma("GCC diagnostic ignored \"-Wmaybe-uninitialized\"")
#define TIR_ISA_VARIANTS_END _Pragma("GCC diagnostic pop")
#define TIR_TARGET_AVX512_VNNI \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,fma,f16c")))
#else
#define TIR_HAS_ISA_VARIANTS 0
#endif
