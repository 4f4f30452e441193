#include "kernels/shapes/dtype_util.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "core/float16.h"

namespace tir::kernels {
namespace {

int category(DType d) {
  if (d == DType::kUndefined) return -1;
  if (d == DType::kBool) return 0;
  if (dtype_is_complex(d)) return 3;
  return dtype_is_float(d) ? 2 : 1;
}

DType promote_defined(DType a, DType b) {
  if (a == DType::kUndefined) return b;
  if (b == DType::kUndefined) return a;
  return promote_types(a, b);
}

// ATen's combine_categories: a float of higher priority keeps its precision when a complex
// operand of lower priority makes the result complex (float64 tensor * complex64 scalar ->
// complex128).
DType combine(DType higher, DType lower) {
  if (category(higher) == 3) return higher;
  if (category(lower) == 3) {
    const DType c = complex_dtype_of(higher);
    return c != DType::kUndefined ? c : lower;
  }
  if (category(higher) == 2) return higher;
  if (higher == DType::kBool || category(lower) == 2) return promote_defined(higher, lower);
  if (higher != DType::kUndefined) return higher;
  return lower;
}

}  // namespace

Status require_supported_dtype(const KernelCall& call, const Tensor& t, std::string_view name) {
  if (dtype_supported(t.dtype)) return ok_status();
  return op_error(call, StatusCode::kUnsupported, "argument '", name, "' has dtype ",
                  dtype_name(t.dtype), " (supported: bool, int32, int64, float32, float64)");
}

Status require_valid_dtype(const KernelCall& call, const Tensor& t, std::string_view name) {
  if (dtype_valid(int(t.dtype))) return ok_status();
  return op_error(call, StatusCode::kUnsupported, "argument '", name, "' has no valid dtype (",
                  int(t.dtype), ")");
}

DType promote_types(DType a, DType b) {
  if (a == b || b == DType::kBool || b == DType::kUndefined) return a;
  if (a == DType::kBool || a == DType::kUndefined) return b;
  if (dtype_is_complex(a) || dtype_is_complex(b)) {  // complex wins; the wider parts win
    const bool wide = a == DType::kComplexDouble || b == DType::kComplexDouble ||
                      a == DType::kFloat64 || b == DType::kFloat64;
    return wide ? DType::kComplexDouble : DType::kComplexFloat;
  }
  if (dtype_is_float(a) != dtype_is_float(b)) return dtype_is_float(a) ? a : b;
  if (dtype_is_float(a)) {
    const bool half_pair = dtype_size(a) == 2 && dtype_size(b) == 2;  // float16 x bfloat16
    return half_pair ? DType::kFloat32 : dtype_size(a) >= dtype_size(b) ? a : b;
  }
  if (a == DType::kUInt8 || b == DType::kUInt8) {  // uint8 with a signed integer
    const DType other = a == DType::kUInt8 ? b : a;
    return other == DType::kInt8 ? DType::kInt16 : other;
  }
  return dtype_size(a) >= dtype_size(b) ? a : b;
}

ScalarValue scalar_value(const Arg& a) {
  ScalarValue v;
  v.is_float = a.kind == ArgKind::kFloat;
  v.is_bool = a.kind == ArgKind::kBool;
  v.i = a.i;
  v.f = a.f;
  return v;
}

ScalarValue read_scalar_value(const Tensor& t) {
  ScalarValue v;
  visit_dtype(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T x = *t.data_as<const T>();
    if constexpr (std::is_floating_point_v<T>) {
      v.is_float = true;
      v.f = static_cast<double>(x);
    } else {
      v.is_bool = std::is_same_v<T, bool>;
      v.i = static_cast<int64_t>(x);
    }
  });
  return v;
}

Result<Operand> operand_arg(const KernelCall& call, size_t idx, std::string_view name) {
  if (idx >= call.args.size()) {
    return op_error(call, StatusCode::kInvalidArgument, "missing argument '", name, "'");
  }
  const Arg& a = call.args[idx];
  Operand op;
  if (a.kind == ArgKind::kInt || a.kind == ArgKind::kFloat || a.kind == ArgKind::kBool) {
    op.kind = Operand::Kind::kScalar;
    op.value = scalar_value(a);
    op.dtype = a.kind == ArgKind::kFloat  ? DType::kFloat64
               : a.kind == ArgKind::kBool ? DType::kBool
                                          : DType::kInt64;
    return op;
  }
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, idx, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *t, name));
  op.kind = t->rank == 0 ? Operand::Kind::kZeroDim : Operand::Kind::kTensor;
  op.dtype = t->dtype;
  op.input = static_cast<int>(tensor_input_index(call, idx));
  op.shape = t->shape();
  return op;
}

Result<Operand> tensor_operand_arg(const KernelCall& call, size_t idx, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(Operand o, operand_arg(call, idx, name));
  if (o.kind == Operand::Kind::kScalar)
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' must be a Tensor");
  return o;
}

DType result_type(std::span<const Operand> ops) {
  DType dim = DType::kUndefined, zero = DType::kUndefined, wrapped = DType::kUndefined;
  for (const Operand& o : ops) {
    switch (o.kind) {
      case Operand::Kind::kTensor:
        dim = promote_defined(dim, o.dtype);
        break;
      case Operand::Kind::kZeroDim:
        zero = promote_defined(zero, o.dtype);
        break;
      case Operand::Kind::kScalar:
        // A wrapped Python float takes the default dtype.
        wrapped = promote_defined(wrapped, o.dtype == DType::kFloat64 ? DType::kFloat32 : o.dtype);
        break;
    }
  }
  return combine(dim, combine(zero, wrapped));
}

Result<NaryPlan> make_nary_plan(const KernelCall& call,
                                std::span<const std::span<const int64_t>> shapes) {
  NaryPlan p;
  p.n = static_cast<int>(shapes.size());
  size_t rank = 0;
  for (auto s : shapes) rank = std::max(rank, s.size());
  if (rank > static_cast<size_t>(kMaxRank) || shapes.size() > 3) {
    return op_error(call, StatusCode::kUnsupported, "broadcast rank ", rank, " too large");
  }
  p.rank = static_cast<int>(rank);
  for (int d = 0; d < p.rank; ++d) p.sizes[d] = 1;
  for (auto s : shapes) {
    const size_t lead = rank - s.size();
    for (size_t d = 0; d < s.size(); ++d) {
      int64_t& o = p.sizes[lead + d];
      if (s[d] == o || s[d] == 1) continue;
      if (o != 1) {
        return op_error(call, StatusCode::kInvalidArgument, "shapes cannot be broadcast (dim ",
                        lead + d, ": ", o, " vs ", s[d], ", operand shape ", shape_str(s), ")");
      }
      o = s[d];
    }
  }
  for (size_t k = 0; k < shapes.size(); ++k) {
    auto s = shapes[k];
    int64_t stride = 1;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int j = d - (p.rank - static_cast<int>(s.size()));
      const int64_t size = j >= 0 ? s[j] : 1;
      p.strides[k][d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
  return p;
}

bool scalar_to_element(const ScalarValue& v, DType dtype, void* out) {
  const auto put = [&](auto x) { std::memcpy(out, &x, sizeof(x)); };
  switch (dtype) {
    case DType::kBool:
      return put(v.as<bool>()), true;
    case DType::kUInt8:
      return put(v.as<uint8_t>()), true;
    case DType::kInt8:
      return put(v.as<int8_t>()), true;
    case DType::kInt16:
      return put(v.as<int16_t>()), true;
    case DType::kInt32:
      return put(v.as<int32_t>()), true;
    case DType::kInt64:
      return put(v.as<int64_t>()), true;
    case DType::kFloat16:
      return put(float_to_fp16(v.as<float>())), true;
    case DType::kBFloat16:
      return put(float_to_bf16(v.as<float>())), true;
    case DType::kFloat32:
      return put(v.as<float>()), true;
    case DType::kFloat64:
      return put(v.as<double>()), true;
    case DType::kComplexFloat:
      return put(std::array<float, 2>{v.as<float>(), 0.0f}), true;
    case DType::kComplexDouble:
      return put(std::array<double, 2>{v.as<double>(), 0.0}), true;
    case DType::kUndefined:
      break;
  }
  return false;
}

Result<DType> optional_dtype_arg(const KernelCall& call, size_t idx, std::string_view name,
                                 bool any_valid) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return DType::kUndefined;
  const Arg& a = call.args[idx];
  if (a.kind == ArgKind::kDType && any_valid && dtype_valid(int(a.i)))
    return static_cast<DType>(a.i);
  if (a.kind != ArgKind::kDType || !dtype_supported(static_cast<DType>(a.i))) {
    return op_error(call, StatusCode::kUnsupported, "argument '", name,
                    "' must be None or one of bool, int32, int64, float32, float64");
  }
  return static_cast<DType>(a.i);
}

}  // namespace tir::kernels
