#include "kernels/shapes/reduction/mean.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<ReduceParams> plan_reduce(const KernelCall& call, const Tensor& x,
                                 std::optional<std::span<const int64_t>> dims, bool keepdim,
                                 std::vector<int64_t>* out_shape) {
  ReduceParams p;
  p.rank = x.rank;
  for (int d = 0; d < p.rank; ++d) p.sizes[d] = x.sizes[d];
  if (!dims || dims->empty()) {
    for (int d = 0; d < p.rank; ++d) p.reduced[d] = true;
  } else {
    std::array<bool, kMaxRank + 1> seen{};
    for (int64_t raw : *dims) {
      TIR_ASSIGN_OR_RETURN(int d, normalize_dim(call, raw, p.rank, "dim"));
      if (seen[d]) {
        return op_error(call, StatusCode::kInvalidArgument, "dim ", d,
                        " appears multiple times in the list of dims");
      }
      seen[d] = true;
      if (d < p.rank) p.reduced[d] = true;
    }
  }
  int first = -1, last = -1;
  bool gap = false;
  for (int d = 0; d < p.rank; ++d) {
    if (p.reduced[d]) {
      p.reduce_numel *= p.sizes[d];
      if (first < 0) first = d;
      if (last >= 0 && last != d - 1) gap = true;
      last = d;
      if (keepdim) out_shape->push_back(1);
    } else {
      out_shape->push_back(p.sizes[d]);
    }
  }
  p.out_numel = prod(*out_shape, 0, out_shape->size());
  p.blocked = !gap;
  if (first >= 0) {
    p.outer = prod(x.shape(), 0, first);
    p.inner = prod(x.shape(), last + 1, p.rank);
  } else {
    p.outer = x.numel();
  }
  p.input = static_cast<int>(tensor_input_index(call, 0));
  return p;
}

namespace {

Result<ReduceParams> mean_dim_common(const KernelCall& call, bool channels_last) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  // float32, or float64 (torch's double mean; the channels-last kernels take float32 only).
  const DType want =
      x->dtype == DType::kFloat64 && !channels_last ? DType::kFloat64 : DType::kFloat32;
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, want, "self"));
  if (!channels_last || !x->is_channels_last())
    TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(auto dims, optional_ints_arg(call, 1, "dim"));
  TIR_ASSIGN_OR_RETURN(bool keepdim, bool_arg(call, 2, "keepdim"));
  const Arg& dtype = call.args[3];
  if (!dtype.is_none() && !(dtype.kind == ArgKind::kDType && static_cast<DType>(dtype.i) == want)) {
    return op_error(call, StatusCode::kUnsupported, "argument 'dtype' must be None or ",
                    dtype_name(want));
  }
  std::vector<int64_t> out;
  TIR_ASSIGN_OR_RETURN(ReduceParams p, plan_reduce(call, *x, dims, keepdim, &out));
  Tensor& y = call.outputs[0];
  y.dtype = want;
  y.set_shape(out);
  if (channels_last && call.channels_last && y.rank == 4) y.set_channels_last_strides();
  p.strided = !x->is_contiguous() || !y.is_contiguous();
  return p;
}

}  // namespace

Result<ReduceParams> reduce_prepare_mean_dim(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return mean_dim_common(call, false);
}

Result<ReduceParams> reduce_prepare_mean_dim_channels_last(const KernelCall& call,
                                                           PrepareInfo* out_info) {
  (void)out_info;
  return mean_dim_common(call, true);
}

}  // namespace tir::kernels
