#include "kernels/shapes/linear_algebra/distance.h"

#include <cmath>
#include <vector>

namespace tir::kernels {
namespace {

Status check_p(const KernelCall& call, double p) {
  if (!(p >= 0)) {
    return op_error(call, StatusCode::kInvalidArgument, "p must be non-negative, got ", p);
  }
  return ok_status();
}

Result<const Tensor*> matrix_arg(const KernelCall& call, size_t idx, const char* name,
                                 bool batched) {
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, idx, name));
  TIR_RETURN_IF_ERROR(require_dtype(call, *t, DType::kFloat32, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  if (batched ? t->rank < 2 : t->rank != 2) {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' must be ",
                    batched ? "at least 2-D" : "2-D", ", got ", shape_str(t->shape()));
  }
  return t;
}

}  // namespace

Result<DistanceParams> distance_prepare_cdist(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* a, matrix_arg(call, 0, "x1", true));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, matrix_arg(call, 1, "x2", true));
  DistanceParams p;
  TIR_ASSIGN_OR_RETURN(p.p, scalar_arg(call, 2, "p"));
  TIR_RETURN_IF_ERROR(check_p(call, p.p));
  if (a->size(-1) != b->size(-1)) {
    return op_error(call, StatusCode::kInvalidArgument, "x1 ", shape_str(a->shape()), " and x2 ",
                    shape_str(b->shape()), " must have the same number of columns");
  }
  p.x1 = static_cast<int>(tensor_input_index(call, 0));
  p.x2 = static_cast<int>(tensor_input_index(call, 1));
  p.rows1 = a->size(-2);
  p.rows2 = b->size(-2);
  p.cols = a->size(-1);
  const auto batch_a = a->shape().first(a->rank - 2), batch_b = b->shape().first(b->rank - 2);
  TIR_ASSIGN_OR_RETURN(std::vector<int64_t> batch, broadcast_shapes(call, batch_a, batch_b));
  p.batch = make_broadcast_plan(batch, batch_a, batch_b);
  batch.push_back(p.rows1);
  batch.push_back(p.rows2);
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(batch);
  (void)out_info;
  return p;
}

Result<DistanceParams> distance_prepare_pdist(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* a, matrix_arg(call, 0, "self", false));
  DistanceParams p;
  TIR_ASSIGN_OR_RETURN(p.p, scalar_arg(call, 1, "p"));
  TIR_RETURN_IF_ERROR(check_p(call, p.p));
  p.x1 = static_cast<int>(tensor_input_index(call, 0));
  p.rows1 = p.rows2 = a->sizes[0];
  p.cols = a->sizes[1];
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape({p.rows1 * (p.rows1 - 1) / 2});
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
