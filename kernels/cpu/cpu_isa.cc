#include "kernels/cpu/cpu_isa.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if TIR_HAS_ISA_VARIANTS
#include <cpuid.h>
#endif

namespace tir::kernels {
namespace {

struct Features {
  bool avx2 = false, fma = false, f16c = false;
  bool avx512 = false;  // F + BW + VL + DQ, with the ZMM state saved by the OS
  bool avx512_vnni = false, avx512_bf16 = false, avx_vnni = false;
  bool amx_tile = false, amx_int8 = false, amx_bf16 = false;
};

Features read_features() {
  Features f;
#if TIR_HAS_ISA_VARIANTS
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool osxsave = c & (1u << 27), avx = c & (1u << 28);
  f.fma = c & (1u << 12);
  f.f16c = c & (1u << 29);
  unsigned xcr0 = 0, xcr0_high = 0;
  if (osxsave) __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_high) : "c"(0));
  const bool ymm_saved = (xcr0 & 0x6) == 0x6;
  const bool zmm_saved = (xcr0 & 0xe6) == 0xe6;  // SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM
  const bool tiles_saved = (xcr0 & 0x60000) == 0x60000;
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = avx && ymm_saved && (b & (1u << 5));
  const bool f512 = b & (1u << 16), dq = b & (1u << 17), bw = b & (1u << 30), vl = b & (1u << 31);
  f.avx512 = zmm_saved && f512 && dq && bw && vl && f.fma && f.f16c;
  f.avx512_vnni = f.avx512 && (c & (1u << 11));
  f.amx_bf16 = tiles_saved && (d & (1u << 22));
  f.amx_tile = tiles_saved && (d & (1u << 24));
  f.amx_int8 = tiles_saved && (d & (1u << 25));
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  __cpuid_count(7, 1, a1, b1, c1, d1);
  f.avx_vnni = f.avx2 && (a1 & (1u << 4));
  f.avx512_bf16 = f.avx512 && (a1 & (1u << 5));
#endif
  return f;
}

const Features& features() {
  static const Features f = read_features();
  return f;
}

bool parse_isa(const char* s, CpuIsa* isa) {
  if (!std::strcmp(s, "baseline") || !std::strcmp(s, "avx2")) return *isa = CpuIsa::kBaseline, true;
  if (!std::strcmp(s, "avx512_vnni")) return *isa = CpuIsa::kAvx512Vnni, true;
  return false;
}

}  // namespace

CpuIsa detected_cpu_isa() {
  const Features& f = features();
  if (f.avx512_vnni) return CpuIsa::kAvx512Vnni;
  return CpuIsa::kBaseline;
}

CpuIsa cpu_isa() {
  static const CpuIsa chosen = [] {
    const CpuIsa found = detected_cpu_isa();
    const char* cap = std::getenv("TIR_MAX_CPU_ISA");
    if (!cap || !*cap) return found;
    CpuIsa limit;
    if (!parse_isa(cap, &limit)) {
      std::fprintf(stderr,
                   "tir: warning: TIR_MAX_CPU_ISA=%s is not one of baseline, avx2, "
                   "avx512_vnni; ignored\n",
                   cap);
      return found;
    }
    return static_cast<int>(limit) < static_cast<int>(found) ? limit : found;
  }();
  return chosen;
}

const char* cpu_isa_name(CpuIsa isa) {
  switch (isa) {
    case CpuIsa::kAvx512Vnni:
      return "avx512_vnni";
    case CpuIsa::kBaseline:
      break;
  }
  return "baseline";
}

int cpu_isa_count() { return static_cast<int>(cpu_isa()) + 1; }

std::string cpu_features_line() {
  const Features& f = features();
  std::string line = "cpu:";
  const auto add = [&](bool on, const char* name) {
    if (on) line += std::string(" ") + name;
  };
  add(f.avx2, "avx2");
  add(f.fma, "fma");
  add(f.f16c, "f16c");
  add(f.avx_vnni, "avx_vnni");
  add(f.avx512, "avx512(f,bw,vl,dq)");
  add(f.avx512_vnni, "avx512_vnni");
  add(f.avx512_bf16, "avx512_bf16");
  add(f.amx_tile && f.amx_int8, "amx_int8");
  add(f.amx_tile && f.amx_bf16, "amx_bf16");
  line += std::string("; tir kernels: ") + cpu_isa_name(cpu_isa());
  return line;
}

}  // namespace tir::kernels
