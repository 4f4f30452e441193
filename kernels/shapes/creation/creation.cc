#include "kernels/shapes/creation/creation.h"

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
  TIR_ASSIGN_OR_RETURN(p.dtype, optional_dtype_arg(call, kDTypePos, "dtype"));
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
  if (!dtype_supported(p.dtype)) {
    return op_error(call, StatusCode::kUnsupported, "cannot create a tensor of dtype ",
                    dtype_name(p.dtype));
  }
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(shape);
  p.numel = call.outputs[0].numel();
  (void)out_info;
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
