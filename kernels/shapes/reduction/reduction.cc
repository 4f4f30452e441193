#include "kernels/shapes/reduction/reduction.h"

#include <vector>

namespace tir::kernels {
namespace {

constexpr bool kFloatOnly(ReduceKind op) {
  return op == ReduceKind::kVar || op == ReduceKind::kStd || op == ReduceKind::kMean ||
         op == ReduceKind::kNorm || op == ReduceKind::kLogsumexp;
}

// Fills the plan for reducing `reduce[d]` dims of x; sets outputs' shapes and dtypes.
Result<ReductionParams> plan(const KernelCall& call, ReduceKind op, const Tensor& x,
                             const std::array<bool, kMaxRank>& reduce, bool keepdim,
                             DType dtype_override, PrepareInfo* out_info) {
  ReductionParams p;
  p.op = op;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.in = x.dtype;
  p.rank = x.rank;
  const bool index_op = op == ReduceKind::kArgmax || op == ReduceKind::kArgmin;
  const bool pair = op == ReduceKind::kMaxDim || op == ReduceKind::kMinDim;
  if (index_op) {
    p.out = DType::kInt64;
  } else if (op == ReduceKind::kAny || op == ReduceKind::kAll) {
    p.out = DType::kBool;
  } else if (dtype_override != DType::kUndefined) {
    p.out = dtype_override;
  } else if ((op == ReduceKind::kProd || op == ReduceKind::kSum) && !dtype_is_float(x.dtype)) {
    p.out = DType::kInt64;
  } else {
    p.out = x.dtype;
  }
  if (kFloatOnly(op) && !dtype_is_float(p.out))
    return op_error(call, StatusCode::kInvalidArgument, "needs a floating-point input, got ",
                    dtype_name(x.dtype));
  if (!dtype_supported(p.out))
    return op_error(call, StatusCode::kUnsupported, "dtype ", dtype_name(p.out));
  std::vector<int64_t> out_shape;
  int64_t s = 1, r = 1;
  for (int d = x.rank - 1; d >= 0; --d) {
    p.sizes[d] = x.sizes[d];
    if (reduce[d]) {
      p.red_strides[d] = r;
      r *= x.sizes[d];
    } else {
      p.out_strides[d] = s;
      s *= x.sizes[d];
    }
  }
  p.out_numel = s;
  p.group = r;
  out_info->scratch_bytes = static_cast<size_t>(s) * 2 * sizeof(int64_t);  // two slots each
  if ((index_op || pair || op == ReduceKind::kAmin || op == ReduceKind::kAmax) && r == 0 &&
      x.numel() == 0)
    return op_error(call, StatusCode::kInvalidArgument,
                    "cannot reduce an empty dim without an identity");
  for (int d = 0; d < x.rank; ++d) {
    if (!reduce[d]) {
      out_shape.push_back(x.sizes[d]);
    } else if (keepdim) {
      out_shape.push_back(1);
    }
  }
  // var_mean / std_mean add the mean as a second output (reduction_prepare_var_mean), aminmax
  // the max (reduction_prepare_aminmax).
  const bool second = op == ReduceKind::kVar || op == ReduceKind::kStd || op == ReduceKind::kAmin;
  const size_t n_out = pair ? 2 : 1;
  if (call.outputs.size() != n_out && !(second && call.outputs.size() == 2))
    return op_error(call, StatusCode::kInvalidArgument, "expects ", n_out, " outputs");
  call.outputs[0].dtype = p.out;
  call.outputs[0].set_shape(out_shape);
  if (pair) {
    call.outputs[1].dtype = DType::kInt64;
    call.outputs[1].set_shape(out_shape);
  }
  return p;
}

Result<const Tensor*> input(const KernelCall& call) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *x, "self"));
  return x;
}

// Reduced-dim mask from an optional int[] at `idx` (None or empty: every dim).
Result<std::array<bool, kMaxRank>> dims_mask(const KernelCall& call, const Tensor& x, size_t idx) {
  std::array<bool, kMaxRank> mask{};
  std::span<const int64_t> dims;
  if (idx < call.args.size() && !call.args[idx].is_none()) {
    TIR_ASSIGN_OR_RETURN(dims, ints_arg(call, idx, "dim"));
  }
  if (dims.empty()) {
    for (int d = 0; d < x.rank; ++d) mask[d] = true;
    return mask;
  }
  for (int64_t d : dims) {
    TIR_ASSIGN_OR_RETURN(const int n, normalize_dim(call, d, x.rank, "dim"));
    if (x.rank > 0) {
      if (mask[n]) return op_error(call, StatusCode::kInvalidArgument, "dim ", n, " repeats");
      mask[n] = true;
    }
  }
  return mask;
}

Result<bool> keepdim_at(const KernelCall& call, size_t idx) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return false;
  return bool_arg(call, idx, "keepdim");
}

// Reduced-dim mask from an optional int at argument 1: None reduces every dim (argmax(dim=None):
// flattened).
Result<std::array<bool, kMaxRank>> one_dim_mask(const KernelCall& call, const Tensor& x) {
  std::array<bool, kMaxRank> mask{};
  if (call.args.size() < 2 || call.args[1].is_none()) {
    for (int d = 0; d < x.rank; ++d) mask[d] = true;
    return mask;
  }
  TIR_ASSIGN_OR_RETURN(const int64_t dim, int_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(const int d, normalize_dim(call, dim, x.rank, "dim"));
  if (x.rank > 0) mask[d] = true;
  return mask;
}

}  // namespace

template <ReduceKind Op>
Result<ReductionParams> reduction_prepare_dims(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, input(call));
  TIR_ASSIGN_OR_RETURN(auto mask, dims_mask(call, *x, 1));
  TIR_ASSIGN_OR_RETURN(const bool keepdim, keepdim_at(call, 2));
  return plan(call, Op, *x, mask, keepdim, DType::kUndefined, out_info);
}

template <bool List>
Result<ReductionParams> reduction_prepare_count_nonzero(const KernelCall& call,
                                                        PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, input(call));
  std::array<bool, kMaxRank> mask{};
  if (List) {
    TIR_ASSIGN_OR_RETURN(mask, dims_mask(call, *x, 1));
  } else {
    TIR_ASSIGN_OR_RETURN(mask, one_dim_mask(call, *x));
  }
  // The 0-norm counts nonzeros (NaN included); planned in float64, written as int64.
  TIR_ASSIGN_OR_RETURN(ReductionParams p,
                       plan(call, ReduceKind::kNorm, *x, mask, false, DType::kFloat64, out_info));
  p.ord = 0;
  p.out = DType::kInt64;
  call.outputs[0].dtype = DType::kInt64;
  return p;
}

template Result<ReductionParams> reduction_prepare_count_nonzero<true>(const KernelCall&,
                                                                       PrepareInfo*);
template Result<ReductionParams> reduction_prepare_count_nonzero<false>(const KernelCall&,
                                                                        PrepareInfo*);

Result<ReductionParams> reduction_prepare_aminmax(const KernelCall& call, PrepareInfo* out_info) {
  if (call.outputs.size() != 2)
    return op_error(call, StatusCode::kInvalidArgument, "expects two outputs");
  TIR_ASSIGN_OR_RETURN(ReductionParams p,
                       reduction_prepare_one_dim<ReduceKind::kAmin>(call, out_info));
  call.outputs[1].dtype = call.outputs[0].dtype;
  call.outputs[1].set_shape(call.outputs[0].shape());
  return p;
}

template <ReduceKind Op>
Result<ReductionParams> reduction_prepare_one_dim(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, input(call));
  TIR_ASSIGN_OR_RETURN(auto mask, one_dim_mask(call, *x));
  TIR_ASSIGN_OR_RETURN(bool keepdim, keepdim_at(call, 2));
  DType dtype = DType::kUndefined;
  if (Op == ReduceKind::kProd) {
    TIR_ASSIGN_OR_RETURN(dtype, optional_dtype_arg(call, 3, "dtype"));
  }
  // argmax(dim=None, keepdim=True) keeps every dim as 1, as torch does.
  return plan(call, Op, *x, mask, keepdim, dtype, out_info);
}

template <ReduceKind Op>
Result<ReductionParams> reduction_prepare_full(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, input(call));
  std::array<bool, kMaxRank> mask{};
  for (int d = 0; d < x->rank; ++d) mask[d] = true;
  DType dtype = DType::kUndefined;
  if (Op == ReduceKind::kProd || Op == ReduceKind::kMean || Op == ReduceKind::kSum) {
    TIR_ASSIGN_OR_RETURN(dtype, optional_dtype_arg(call, 1, "dtype"));
  }
  return plan(call,
              Op == ReduceKind::kMaxDim   ? ReduceKind::kAmax
              : Op == ReduceKind::kMinDim ? ReduceKind::kAmin
                                          : Op,
              *x, mask, false, dtype, out_info);
}

template <ReduceKind Op, bool Correction>
Result<ReductionParams> reduction_prepare_var(const KernelCall& call, PrepareInfo* out_info) {
  if (call.args.size() != 4)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, dim, correction, keepdim)");
  TIR_ASSIGN_OR_RETURN(const Tensor* x, input(call));
  TIR_ASSIGN_OR_RETURN(auto mask, dims_mask(call, *x, 1));
  TIR_ASSIGN_OR_RETURN(const bool keepdim, keepdim_at(call, 3));
  double correction = 1;
  if (Correction) {
    if (!call.args[2].is_none()) {
      TIR_ASSIGN_OR_RETURN(correction, scalar_arg(call, 2, "correction"));
    }
  } else {
    TIR_ASSIGN_OR_RETURN(const bool unbiased, bool_arg(call, 2, "unbiased"));
    correction = unbiased ? 1 : 0;
  }
  TIR_ASSIGN_OR_RETURN(ReductionParams p,
                       plan(call, Op, *x, mask, keepdim, DType::kUndefined, out_info));
  p.correction = correction;
  return p;
}

template <ReduceKind Op, bool Correction>
Result<ReductionParams> reduction_prepare_var_mean(const KernelCall& call, PrepareInfo* out_info) {
  if (call.outputs.size() != 2)
    return op_error(call, StatusCode::kInvalidArgument, "expects two outputs");
  TIR_ASSIGN_OR_RETURN(ReductionParams p, (reduction_prepare_var<Op, Correction>(call, out_info)));
  call.outputs[1].dtype = call.outputs[0].dtype;
  call.outputs[1].set_shape(call.outputs[0].shape());
  return p;
}

Result<ReductionParams> reduction_prepare_norm(const KernelCall& call, PrepareInfo* out_info) {
  if (call.args.size() != 5)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, ord, dim, keepdim, dtype)");
  TIR_ASSIGN_OR_RETURN(const Tensor* x, input(call));
  TIR_ASSIGN_OR_RETURN(const double ord, scalar_arg(call, 1, "ord"));
  TIR_ASSIGN_OR_RETURN(auto mask, dims_mask(call, *x, 2));
  TIR_ASSIGN_OR_RETURN(const bool keepdim, keepdim_at(call, 3));
  TIR_ASSIGN_OR_RETURN(const DType out, optional_dtype_arg(call, 4, "dtype"));
  TIR_ASSIGN_OR_RETURN(ReductionParams p,
                       plan(call, ReduceKind::kNorm, *x, mask, keepdim, out, out_info));
  p.ord = ord;
  return p;
}

Result<ReductionParams> reduction_prepare_logsumexp(const KernelCall& call, PrepareInfo* out_info) {
  if (call.args.size() != 3)
    return op_error(call, StatusCode::kInvalidArgument, "expects (self, dim, keepdim)");
  TIR_ASSIGN_OR_RETURN(const Tensor* x, input(call));
  TIR_ASSIGN_OR_RETURN(auto mask, dims_mask(call, *x, 1));
  TIR_ASSIGN_OR_RETURN(const bool keepdim, keepdim_at(call, 2));
  return plan(call, ReduceKind::kLogsumexp, *x, mask, keepdim,
              dtype_is_float(x->dtype) ? DType::kUndefined : DType::kFloat32, out_info);
}

#define TIR_RED(fn, op) \
  template Result<ReductionParams> fn<ReduceKind::op>(const KernelCall&, PrepareInfo*);
TIR_RED(reduction_prepare_dims, kAmin)
TIR_RED(reduction_prepare_dims, kAmax)
TIR_RED(reduction_prepare_dims, kAny)
TIR_RED(reduction_prepare_dims, kAll)
TIR_RED(reduction_prepare_one_dim, kArgmax)
TIR_RED(reduction_prepare_one_dim, kArgmin)
TIR_RED(reduction_prepare_one_dim, kMaxDim)
TIR_RED(reduction_prepare_one_dim, kMinDim)
TIR_RED(reduction_prepare_one_dim, kProd)
TIR_RED(reduction_prepare_one_dim, kAny)
TIR_RED(reduction_prepare_one_dim, kAll)
TIR_RED(reduction_prepare_one_dim, kAmin)
TIR_RED(reduction_prepare_full, kMaxDim)
TIR_RED(reduction_prepare_full, kMinDim)
TIR_RED(reduction_prepare_full, kProd)
TIR_RED(reduction_prepare_full, kMean)
TIR_RED(reduction_prepare_full, kSum)
TIR_RED(reduction_prepare_full, kAny)
TIR_RED(reduction_prepare_full, kAll)
#undef TIR_RED
template Result<ReductionParams> reduction_prepare_var<ReduceKind::kVar, true>(const KernelCall&,
                                                                               PrepareInfo*);
template Result<ReductionParams> reduction_prepare_var<ReduceKind::kVar, false>(const KernelCall&,
                                                                                PrepareInfo*);
template Result<ReductionParams> reduction_prepare_var<ReduceKind::kStd, true>(const KernelCall&,
                                                                               PrepareInfo*);
template Result<ReductionParams> reduction_prepare_var<ReduceKind::kStd, false>(const KernelCall&,
                                                                                PrepareInfo*);
#define TIR_VAR_MEAN(op, c)                                                       \
  template Result<ReductionParams> reduction_prepare_var_mean<ReduceKind::op, c>( \
      const KernelCall&, PrepareInfo*);
TIR_VAR_MEAN(kVar, true)
TIR_VAR_MEAN(kVar, false)
TIR_VAR_MEAN(kStd, true)
TIR_VAR_MEAN(kStd, false)
#undef TIR_VAR_MEAN

}  // namespace tir::kernels
