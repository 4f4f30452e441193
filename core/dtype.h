// Element types, numbered as ATen's c10::ScalarType so imported graphs need no mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tir {

enum class DType : int8_t {
  kUndefined = -1,
  kUInt8 = 0,
  kInt8 = 1,
  kInt16 = 2,
  kInt32 = 3,
  kInt64 = 4,
  kFloat16 = 5,
  kFloat32 = 6,
  kFloat64 = 7,
  // ATen's ComplexHalf (8) has no enumerator: files that carry it are refused as unknown.
  kComplexFloat = 9,    // complex64: two float32, real part first (std::complex<float>)
  kComplexDouble = 10,  // complex128: two float64
  kBool = 11,
  kBFloat16 = 15,
};

/// Bytes per element; 0 for kUndefined or an unknown value.
constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
      return 1;
    case DType::kInt16:
    case DType::kFloat16:
    case DType::kBFloat16:
      return 2;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
    case DType::kFloat64:
    case DType::kComplexFloat:
      return 8;
    case DType::kComplexDouble:
      return 16;
    case DType::kUndefined:
      return 0;
  }
  return 0;
}

/// numpy-style name ("float32"), used in messages and .npy headers.
constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kInt16:
      return "int16";
    case DType::kInt32:
      return "int32";
    case DType::kInt64:
      return "int64";
    case DType::kFloat16:
      return "float16";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat64:
      return "float64";
    case DType::kComplexFloat:
      return "complex64";
    case DType::kComplexDouble:
      return "complex128";
    case DType::kBool:
      return "bool";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kUndefined:
      return "undefined";
  }
  return "unknown";
}

/// True for a value that is one of the enumerators above (files are untrusted).
constexpr bool dtype_valid(int v) { return dtype_size(static_cast<DType>(v)) != 0; }

constexpr bool dtype_is_float(DType t) {
  return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64 ||
         t == DType::kBFloat16;
}

/// An element of 16 bytes (complex128) for kernels that move elements without reading them;
/// the 1-, 2-, 4- and 8-byte ones use uint8_t..uint64_t.
struct Bits128 {
  uint64_t lo, hi;
};

/// complex64 or complex128. These are not floats (torch.is_floating_point is false for them);
/// a kernel that computes on values takes them only where its catalogue row lists them.
constexpr bool dtype_is_complex(DType t) {
  return t == DType::kComplexFloat || t == DType::kComplexDouble;
}

/// The dtype of one part of a complex dtype (complex64 -> float32); `t` itself otherwise.
constexpr DType complex_part_dtype(DType t) {
  return t == DType::kComplexFloat    ? DType::kFloat32
         : t == DType::kComplexDouble ? DType::kFloat64
                                      : t;
}

/// The complex dtype whose parts are `t` (float32 -> complex64, float64 -> complex128);
/// kUndefined for any other dtype (torch has no complex bfloat16, and tir no complex32).
constexpr DType complex_dtype_of(DType t) {
  return t == DType::kFloat32   ? DType::kComplexFloat
         : t == DType::kFloat64 ? DType::kComplexDouble
                                : DType::kUndefined;
}

}  // namespace tir
