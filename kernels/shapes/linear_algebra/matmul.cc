#include "kernels/shapes/linear_algebra/matmul.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

/// An operand in `want`; kUndefined: float64 or else float32, as the first operand decides.
Result<const Tensor*> matmul_operand(const KernelCall& call, size_t idx, std::string_view name,
                                     DType want = DType::kUndefined) {
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, idx, name));
  if (want == DType::kUndefined)
    want = t->dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  TIR_RETURN_IF_ERROR(require_dtype(call, *t, want, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  return t;
}

// Fills batch dims and strides for A with batch shape `ab` ([.., M, K] dense) and B with
// `bb`, broadcast to `batch`.
void set_batches(MatmulParams& p, std::span<const int64_t> batch, std::span<const int64_t> ab,
                 std::span<const int64_t> bb) {
  p.batch_rank = static_cast<int>(batch.size());
  int64_t sa = p.m * p.k, sb = p.k * p.n;
  for (int i = p.batch_rank - 1; i >= 0; --i) {
    const int ia = i - (p.batch_rank - static_cast<int>(ab.size()));
    const int ib = i - (p.batch_rank - static_cast<int>(bb.size()));
    const int64_t da = ia >= 0 ? ab[ia] : 1, db = ib >= 0 ? bb[ib] : 1;
    p.batch[i] = batch[i];
    p.a_batch[i] = da;
    p.b_batch[i] = db;
    p.a_bstrides[i] = da == 1 ? 0 : sa;
    p.b_bstrides[i] = db == 1 ? 0 : sb;
    sa *= da;
    sb *= db;
  }
}

Status bad_product(const KernelCall& call, const Tensor& a, const Tensor& b) {
  return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(a.shape()), " and ",
                  "mat2/other ", shape_str(b.shape()), " cannot be multiplied (inner dims differ)");
}

Result<MatmulParams> bmm_common(const KernelCall& call, size_t a_pos, size_t b_pos) {
  TIR_ASSIGN_OR_RETURN(const Tensor* a, matmul_operand(call, a_pos, "batch1"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, matmul_operand(call, b_pos, "batch2", a->dtype));
  if (a->rank != 3 || b->rank != 3) {
    return op_error(call, StatusCode::kInvalidArgument, "batch1 ", shape_str(a->shape()),
                    " and batch2 ", shape_str(b->shape()), " must both be 3-D");
  }
  if (a->sizes[0] != b->sizes[0]) {
    return op_error(call, StatusCode::kInvalidArgument, "batch1 ", shape_str(a->shape()),
                    " and batch2 ", shape_str(b->shape()), " have different batch sizes");
  }
  if (a->sizes[2] != b->sizes[1]) return bad_product(call, *a, *b);
  MatmulParams p;
  p.dtype = a->dtype;
  p.m = a->sizes[1];
  p.k = a->sizes[2];
  p.n = b->sizes[2];
  const int64_t batch[1] = {a->sizes[0]};
  set_batches(p, batch, batch, batch);
  p.a_input = static_cast<int>(tensor_input_index(call, a_pos));
  p.b_input = static_cast<int>(tensor_input_index(call, b_pos));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape({batch[0], p.m, p.n});
  return p;
}

}  // namespace

Result<MatmulParams> matmul_prepare_bmm(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  return bmm_common(call, 0, 1);
}

Result<MatmulParams> matmul_prepare_baddbmm(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 1));
  TIR_ASSIGN_OR_RETURN(MatmulParams p, bmm_common(call, 1, 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* c, matmul_operand(call, 0, "self", p.dtype));
  TIR_ASSIGN_OR_RETURN(p.beta, scalar_arg(call, 3, "beta"));
  TIR_ASSIGN_OR_RETURN(p.alpha, scalar_arg(call, 4, "alpha"));
  const int64_t bmn[3] = {p.batch[0], p.m, p.n};
  auto shape = broadcast_shapes(call, c->shape(), bmn);
  if (!shape.ok() || std::vector<int64_t>(bmn, bmn + 3) != *shape) {
    return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(c->shape()),
                    " does not broadcast to the product shape ", shape_str(bmn));
  }
  const BroadcastPlan plan = make_broadcast_plan(bmn, c->shape(), bmn);
  p.c_input = static_cast<int>(tensor_input_index(call, 0));
  p.c_bstrides[0] = plan.a_strides[0];
  p.c_row_stride = plan.a_strides[1];
  p.c_col_stride = plan.a_strides[2];
  return p;
}

Result<MatmulParams> matmul_prepare_matmul(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* a, matmul_operand(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, matmul_operand(call, 1, "other", a->dtype));
  if (a->rank == 0 || b->rank == 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "both arguments to matmul need to be at "
                    "least 1-D, got self ",
                    shape_str(a->shape()), " and other ", shape_str(b->shape()));
  }
  MatmulParams p;
  p.dtype = a->dtype;
  // A 1-D self is a [1, K] row; a 1-D other a [K, 1] column; both dims are dropped after.
  p.m = a->rank == 1 ? 1 : a->size(-2);
  p.k = a->size(-1);
  const int64_t kb = b->rank == 1 ? b->sizes[0] : b->size(-2);
  p.n = b->rank == 1 ? 1 : b->size(-1);
  if (kb != p.k) return bad_product(call, *a, *b);
  const auto ab = a->shape().first(a->rank > 2 ? a->rank - 2 : 0);
  const auto bb = b->shape().first(b->rank > 2 ? b->rank - 2 : 0);
  TIR_ASSIGN_OR_RETURN(std::vector<int64_t> batch, broadcast_shapes(call, ab, bb));
  set_batches(p, batch, ab, bb);
  std::vector<int64_t> out = batch;
  if (a->rank > 1) out.push_back(p.m);
  if (b->rank > 1) out.push_back(p.n);
  p.a_input = static_cast<int>(tensor_input_index(call, 0));
  p.b_input = static_cast<int>(tensor_input_index(call, 1));
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(out);
  return p;
}

}  // namespace tir::kernels
