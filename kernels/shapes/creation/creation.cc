#include "kernels/shapes/creation/creation.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Result<std::span<const int64_t>> size_arg(const KernelCall& call, size_t idx) {
  TIR_ASSIGN_OR_RETURN(auto size, ints_arg(call, idx, "size"));
  if (size.size() > static_cast<size_t>(kMaxRank)) {
    return op_error(call, StatusCode::kUnsupported, "argument 'size' has rank ", size.size());
  }
  for (int64_t s : size) {
    if (s < 0) {
      return op_error(call, StatusCode::kInvalidArgument, "argument 'size' ", shape_str(size),
                      " has a negative dim");
    }
  }
  return size;
}

}  // namespace

template <FillKind Kind>
Result<FillParams> creation_prepare_fill(const KernelCall& call, PrepareInfo* out_info) {
  constexpr bool kLike =
      Kind == FillKind::kFullLike || Kind == FillKind::kZerosLike || Kind == FillKind::kOnesLike;
  constexpr bool kNew = Kind == FillKind::kNewZeros || Kind == FillKind::kNewOnes;
  constexpr bool kHasFill =
      Kind == FillKind::kScalarTensor || Kind == FillKind::kFull || Kind == FillKind::kFullLike;
  // Position of the fill value and of dtype in the schema.
  constexpr size_t kFillPos = Kind == FillKind::kScalarTensor ? 0 : 1;
  constexpr size_t kDTypePos = Kind == FillKind::kScalarTensor ? 1 : (kHasFill || kNew ? 2 : 1);
  TIR_RETURN_IF_ERROR(check_arity(call, kDTypePos + 1, 1));
  FillParams p;
  DType self_dtype = DType::kUndefined;
  std::span<const int64_t> shape;
  if constexpr (kLike || kNew) {
    TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
    self_dtype = x->dtype;
    shape = x->shape();
  }
  if constexpr (Kind == FillKind::kFull || Kind == FillKind::kZeros || Kind == FillKind::kOnes) {
    TIR_ASSIGN_OR_RETURN(shape, size_arg(call, 0));
  }
  if constexpr (kNew) {
    TIR_ASSIGN_OR_RETURN(shape, size_arg(call, 1));
  }
  if constexpr (kHasFill) {
    TIR_ASSIGN_OR_RETURN(double v, scalar_arg(call, kFillPos, "fill_value"));
    (void)v;
    p.value = scalar_value(call.args[kFillPos]);
  } else {
    p.value.i = Kind == FillKind::kOnes || Kind == FillKind::kOnesLike || Kind == FillKind::kNewOnes
                    ? 1
                    : 0;
  }
  // full makes every dtype (scalar_to_element): narrow ints and float16/bfloat16 as stored,
  // complex as the value + 0i (the core IR pads complex rotary tables with full).
  constexpr bool kComplexOk = Kind == FillKind::kFull;
  TIR_ASSIGN_OR_RETURN(p.dtype, optional_dtype_arg(call, kDTypePos, "dtype", kComplexOk));
  if (p.dtype == DType::kUndefined) {
    if (self_dtype != DType::kUndefined) {
      p.dtype = self_dtype;
    } else if (Kind == FillKind::kFull) {
      // full infers from the fill value: bool, int64 or the default float32.
      p.dtype = p.value.is_bool ? DType::kBool : p.value.is_float ? DType::kFloat32 : DType::kInt64;
    } else {
      p.dtype = DType::kFloat32;
    }
  }
  if (!dtype_supported(p.dtype) && !(kComplexOk && dtype_valid(int(p.dtype)))) {
    return op_error(call, StatusCode::kUnsupported, "cannot create a tensor of dtype ",
                    dtype_name(p.dtype));
  }
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(shape);
  p.numel = call.outputs[0].numel();
  (void)out_info;
  return p;
}

namespace {

Result<ArangeParams> arange_common(const KernelCall& call, int start_pos, int end_pos, int step_pos,
                                   int dtype_pos) {
  TIR_RETURN_IF_ERROR(check_arity(call, static_cast<size_t>(dtype_pos) + 1, 1));
  bool all_int = true;
  auto scalar = [&](int pos, std::string_view name, double dflt) -> Result<double> {
    if (pos < 0) return dflt;
    all_int = all_int && call.args[pos].kind != ArgKind::kFloat;
    return scalar_arg(call, pos, name);
  };
  ArangeParams p;
  TIR_ASSIGN_OR_RETURN(double start, scalar(start_pos, "start", 0.0));
  TIR_ASSIGN_OR_RETURN(double end, scalar(end_pos, "end", 0.0));
  TIR_ASSIGN_OR_RETURN(double step, scalar(step_pos, "step", 1.0));
  const Arg& dt = call.args[dtype_pos];
  if (dt.kind == ArgKind::kDType) {
    p.dtype = static_cast<DType>(dt.i);
  } else if (dt.is_none()) {
    p.dtype = all_int ? DType::kInt64 : DType::kFloat32;
  } else {
    return op_error(call, StatusCode::kInvalidArgument, "argument 'dtype' must be a dtype");
  }
  if (p.dtype == DType::kBool || dtype_size(p.dtype) == 0) {
    return op_error(call, StatusCode::kUnsupported, "dtype ", dtype_name(p.dtype),
                    " is not supported (integer and floating-point dtypes)");
  }
  if (step == 0 || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
    return op_error(call, StatusCode::kInvalidArgument, "step must be nonzero and bounds finite");
  }
  if ((step > 0 && end < start) || (step < 0 && end > start)) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "upper bound and larger bound inconsistent with step sign");
  }
  const bool integral = !dtype_is_float(p.dtype);
  if (integral) {  // ATen computes in int64 after truncating the bounds
    p.istart = static_cast<int64_t>(start);
    p.istep = static_cast<int64_t>(step);
    const int64_t iend = static_cast<int64_t>(end);
    if (p.istep == 0) {
      return op_error(call, StatusCode::kInvalidArgument, "step truncates to zero");
    }
    const int64_t sgn = p.istep > 0 ? 1 : -1;
    p.n = std::max<int64_t>(0, (iend - p.istart + p.istep - sgn) / p.istep);
  } else {
    p.n = static_cast<int64_t>(std::ceil((end - start) / step));
  }
  p.start = start;
  p.step = step;
  const int64_t n[1] = {p.n};
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(n);
  return p;
}

}  // namespace

Result<ArangeParams> creation_prepare_arange(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return arange_common(call, -1, 0, -1, 1);
}

Result<ArangeParams> creation_prepare_arange_start(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return arange_common(call, 0, 1, -1, 2);
}

Result<ArangeParams> creation_prepare_arange_start_step(const KernelCall& call,
                                                        PrepareInfo* out_info) {
  (void)out_info;
  return arange_common(call, 0, 1, 2, 3);
}

Result<FillLikeParams> creation_prepare_fill_self(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  FillLikeParams p;
  p.dtype = x->dtype;
  if (call.args[1].kind == ArgKind::kTensor) {
    TIR_ASSIGN_OR_RETURN(const Tensor* v, tensor_arg(call, 1, "value"));
    TIR_RETURN_IF_ERROR(require_supported_dtype(call, *v, "value"));
    if (v->rank != 0)
      return op_error(call, StatusCode::kInvalidArgument, "value must be a 0-d tensor, got ",
                      shape_str(v->shape()));
    p.value_input = static_cast<int>(tensor_input_index(call, 1));
  } else {
    TIR_ASSIGN_OR_RETURN(double v, scalar_arg(call, 1, "value"));
    (void)v;
    p.value = scalar_value(call.args[1]);
  }
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(x->shape());
  p.numel = x->numel();
  return p;
}

Result<FillLikeParams> creation_prepare_empty_strided(const KernelCall& call,
                                                      PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(auto size, ints_arg(call, 0, "size"));
  if (size.size() > static_cast<size_t>(kMaxRank))
    return op_error(call, StatusCode::kUnsupported, "rank ", size.size());
  for (int64_t s : size)
    if (s < 0) return op_error(call, StatusCode::kInvalidArgument, "negative size");
  FillLikeParams p;
  TIR_ASSIGN_OR_RETURN(p.dtype, optional_dtype_arg(call, 2, "dtype"));
  if (p.dtype == DType::kUndefined) p.dtype = DType::kFloat32;
  if (!dtype_supported(p.dtype))
    return op_error(call, StatusCode::kUnsupported, "dtype ", dtype_name(p.dtype));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(size);
  p.numel = call.outputs[0].numel();
  return p;
}

template Result<FillParams> creation_prepare_fill<FillKind::kScalarTensor>(const KernelCall&,
                                                                           PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kFull>(const KernelCall&, PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kZeros>(const KernelCall&,
                                                                    PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kOnes>(const KernelCall&, PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kFullLike>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kZerosLike>(const KernelCall&,
                                                                        PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kOnesLike>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kNewZeros>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<FillParams> creation_prepare_fill<FillKind::kNewOnes>(const KernelCall&,
                                                                      PrepareInfo*);

}  // namespace tir::kernels
