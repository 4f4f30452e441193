// Dtype helpers shared by the multi-dtype kernels (comparisons, where, casts, creation,
// integer reductions): one dispatch over the supported element types, torch's type
// promotion (torch.result_type), operands that may be tensors or Python scalars, and
// broadcasting of up to three inputs.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/float16.h"
#include "kernels/kernel.h"
#include "kernels/kernel_util.h"

namespace tir::kernels {

/// True for the element types these kernels handle: bool, int32, int64, float32, float64.
constexpr bool dtype_supported(DType d) {
  return d == DType::kBool || d == DType::kInt32 || d == DType::kInt64 || d == DType::kFloat32 ||
         d == DType::kFloat64;
}

/// Calls f(T{}) with T the C++ type of `d` (one of dtype_supported); bool for kBool.
template <typename F>
void visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::kBool:
      f(bool{});
      break;
    case DType::kInt32:
      f(int32_t{});
      break;
    case DType::kInt64:
      f(int64_t{});
      break;
    case DType::kFloat32:
      f(float{});
      break;
    case DType::kFloat64:
      f(double{});
      break;
    default:
      break;
  }
}

/// Calls f(T{}) for every dtype tir stores: the types of visit_dtype plus uint8_t, int8_t,
/// int16_t and Float16 / BFloat16 (core/float16.h). For casts, which convert between all.
template <typename F>
void visit_any_dtype(DType d, F&& f) {
  switch (d) {
    case DType::kUInt8:
      f(uint8_t{});
      break;
    case DType::kInt8:
      f(int8_t{});
      break;
    case DType::kInt16:
      f(int16_t{});
      break;
    case DType::kFloat16:
      f(Float16{});
      break;
    case DType::kBFloat16:
      f(BFloat16{});
      break;
    default:
      visit_dtype(d, f);
  }
}

/// Error unless dtype_supported(t.dtype).
Status require_supported_dtype(const KernelCall& call, const Tensor& t, std::string_view name);

/// Error unless t.dtype is one tir stores (casts take every one).
Status require_valid_dtype(const KernelCall& call, const Tensor& t, std::string_view name);

/// ATen promote_types over every dtype: bool < integers < floats; the wider of two signed
/// integers (uint8 with int8: int16); the wider of two floats (float16 with bfloat16: float32).
DType promote_types(DType a, DType b);

/// A scalar value: kept as int64 for integral/bool values so large ints stay exact.
struct ScalarValue {
  bool is_float = false;
  bool is_bool = false;
  int64_t i = 0;
  double f = 0.0;
  double as_double() const { return is_float ? f : static_cast<double>(i); }
  template <typename T>
  T as() const {
    if constexpr (std::is_same_v<T, bool>) {
      return is_float ? f != 0.0 : i != 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(as_double());
    } else {
      return is_float ? static_cast<T>(f) : static_cast<T>(i);
    }
  }
};
/// ScalarValue of an int/float/bool argument.
ScalarValue scalar_value(const Arg& a);
/// `v` as one element of `dtype`, into `out` (dtype_size(dtype) bytes), for every dtype tir
/// stores: integers as C++ casts them, float16/bfloat16 rounded, complex as v + 0i (what a
/// fill or a padding value becomes). False for kUndefined.
bool scalar_to_element(const ScalarValue& v, DType dtype, void* out);
/// ScalarValue of element 0 of a tensor of a supported dtype.
ScalarValue read_scalar_value(const Tensor& t);

/// One operand of a promoting op, as torch.result_type sees it.
struct Operand {
  enum class Kind : uint8_t { kTensor, kZeroDim, kScalar };
  Kind kind = Kind::kTensor;
  DType dtype = DType::kUndefined;  // for kScalar: kBool, kInt64 or kFloat64
  int input = -1;                   // index into KernelCall::inputs; -1 for a scalar
  std::span<const int64_t> shape;   // empty for scalars
  ScalarValue value;                // for kScalar
};

/// Element `idx` of operand `o` converted to T (a scalar operand ignores idx).
template <typename T>
T operand_load(const Operand& o, const KernelCall& call, int64_t idx) {
  if (o.input < 0) return o.value.as<T>();
  T v{};
  visit_dtype(o.dtype, [&](auto tag) {
    using S = decltype(tag);
    v = static_cast<T>(static_cast<const S*>(call.inputs[o.input].data)[idx]);
  });
  return v;
}

/// The Tensor or Scalar argument at `idx` (a Tensor argument may arrive as a Python
/// number); checks contiguity and dtype_supported.
Result<Operand> operand_arg(const KernelCall& call, size_t idx, std::string_view name);
/// operand_arg for a schema Tensor: a Python number there is an error.
Result<Operand> tensor_operand_arg(const KernelCall& call, size_t idx, std::string_view name);

/// torch.result_type: dimensioned tensors win over 0-d tensors, which win over Python
/// scalars, unless a lower-priority operand is of a higher category (bool < int < float).
/// A float scalar then gives float32 (the default dtype), an int scalar int64.
DType result_type(std::span<const Operand> ops);

/// Output shape and per-input element strides (0 = broadcast) for up to three inputs.
struct NaryPlan {
  int rank = 0;
  int n = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<std::array<int64_t, kMaxRank>, 3> strides{};
  int64_t numel() const {
    int64_t v = 1;
    for (int d = 0; d < rank; ++d) v *= sizes[d];
    return v;
  }
};

/// Broadcasts the shapes (numpy rules), or an error naming the op.
Result<NaryPlan> make_nary_plan(const KernelCall& call,
                                std::span<const std::span<const int64_t>> shapes);

/// Calls f(out_index, std::array<int64_t, 3> input_indices) in row-major output order.
template <typename F>
void nary_for_each(const NaryPlan& p, F&& f) {
  const int64_t total = p.numel();
  std::array<int64_t, kMaxRank> idx{};
  std::array<int64_t, 3> off{};
  for (int64_t o = 0; o < total; ++o) {
    f(o, off);
    for (int d = p.rank - 1; d >= 0; --d) {
      for (int k = 0; k < 3; ++k) off[k] += p.strides[k][d];
      if (++idx[d] < p.sizes[d]) break;
      for (int k = 0; k < 3; ++k) off[k] -= p.strides[k][d] * p.sizes[d];
      idx[d] = 0;
    }
  }
}

/// The optional ScalarType argument at `idx`: kUndefined when None. One of dtype_supported,
/// or with `any_valid` any dtype tir stores (casts).
Result<DType> optional_dtype_arg(const KernelCall& call, size_t idx, std::string_view name,
                                 bool any_valid = false);

}  // namespace tir::kernels
