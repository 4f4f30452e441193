#include "kernels/shapes/linear_algebra/similarity.h"

#include <vector>

namespace tir::kernels {
namespace {

/// x1 and x2 broadcast, the reduced dim (of the broadcast shape) moved last in the plan;
/// the output is the broadcast shape without it (kept as 1 with `keepdim`).
Result<SimilarityParams> prepare(const KernelCall& call, bool cosine) {
  TIR_RETURN_IF_ERROR(check_arity(call, cosine ? 4 : 5, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* a, tensor_arg(call, 0, "x1"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, tensor_arg(call, 1, "x2"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *a, "x1"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *b, "x2"));
  if (a->dtype != b->dtype || !dtype_is_float(a->dtype) || dtype_size(a->dtype) < 4)
    return op_error(call, StatusCode::kUnsupported, "x1 and x2 of dtypes ", dtype_name(a->dtype),
                    " and ", dtype_name(b->dtype), " (float32 or float64, the same)");
  TIR_ASSIGN_OR_RETURN(std::vector<int64_t> shape, broadcast_shapes(call, a->shape(), b->shape()));
  SimilarityParams p;
  p.cosine = cosine;
  p.dtype = a->dtype;
  p.x1 = static_cast<int>(tensor_input_index(call, 0));
  p.x2 = static_cast<int>(tensor_input_index(call, 1));
  const int rank = static_cast<int>(shape.size());
  int dim = rank - 1;
  bool keepdim = false;
  if (cosine) {
    TIR_ASSIGN_OR_RETURN(int64_t raw, int_arg(call, 2, "dim"));
    TIR_ASSIGN_OR_RETURN(dim, normalize_dim(call, raw, rank, "dim"));
    TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 3, "eps"));
  } else {
    TIR_ASSIGN_OR_RETURN(p.p, scalar_arg(call, 2, "p"));
    TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 3, "eps"));
    TIR_ASSIGN_OR_RETURN(keepdim, bool_arg(call, 4, "keepdim"));
    if (p.p < 0) return op_error(call, StatusCode::kInvalidArgument, "p must be >= 0, got ", p.p);
  }
  if (rank == 0) return op_error(call, StatusCode::kInvalidArgument, "0-d inputs");
  p.plan = make_broadcast_plan(shape, a->shape(), b->shape());
  // Move the reduced dim last: the plan walks the output, then the reduced dim inside.
  auto move_last = [&](auto& v) {
    const int64_t keep = v[dim];
    for (int d = dim; d + 1 < rank; ++d) v[d] = v[d + 1];
    v[rank - 1] = keep;
  };
  move_last(p.plan.sizes);
  move_last(p.plan.a_strides);
  move_last(p.plan.b_strides);
  std::vector<int64_t> out = shape;
  if (keepdim) {
    out[dim] = 1;
  } else {
    out.erase(out.begin() + dim);
  }
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(out);
  return p;
}

}  // namespace

Result<SimilarityParams> similarity_prepare_cosine(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  return prepare(call, true);
}

Result<SimilarityParams> similarity_prepare_pairwise(const KernelCall& call,
                                                     PrepareInfo* out_info) {
  (void)out_info;
  return prepare(call, false);
}

}  // namespace tir::kernels
