// IEEE half (fp16) and bfloat16 <-> float32 bit conversions, as torch does them: narrowing
// rounds to nearest, ties to even (overflow to inf, NaN stays NaN); widening is exact.
// Used for weight files stored narrow (`tirc weights pack --dtype`, ir/weight_file.h) and
// by the casts of float16 / bfloat16 tensors.
#pragma once

#include <bit>
#include <cstdint>

namespace tir {

inline float bf16_to_float(uint16_t h) { return std::bit_cast<float>(uint32_t{h} << 16); }

inline uint16_t float_to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40);  // quiet
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

inline float fp16_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0)  // zero or subnormal: mant * 2^-24, exact in float
    return std::bit_cast<float>(sign | std::bit_cast<uint32_t>(float(mant) * 0x1p-24f));
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

inline uint16_t float_to_fp16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) return sign | 0x7e00;   // NaN
  if (x >= 0x477ff000u) return sign | 0x7c00;  // >= 65520 rounds to inf
  if (x < 0x38800000u) {
    // Below the smallest normal half: adding 0.5 makes the FPU round |f| to a multiple of
    // 2^-24 (the half subnormal step, also the ulp of 0.5), ties to even.
    const float r = std::bit_cast<float>(x) + 0.5f;
    return sign | static_cast<uint16_t>(std::bit_cast<uint32_t>(r) - 0x3f000000u);
  }
  // Rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to even.
  x += 0xc8000fffu + ((x >> 13) & 1);
  return sign | static_cast<uint16_t>(x >> 13);
}

/// The element types of float16 and bfloat16 tensors, for code that visits every dtype
/// (casts): their bits, converted to and from float as above.
struct Float16 {
  uint16_t bits;
  float to_float() const { return fp16_to_float(bits); }
  static Float16 from_float(float f) { return {float_to_fp16(f)}; }
};
struct BFloat16 {
  uint16_t bits;
  float to_float() const { return bf16_to_float(bits); }
  static BFloat16 from_float(float f) { return {float_to_bf16(f)}; }
};

}  // namespace tir
