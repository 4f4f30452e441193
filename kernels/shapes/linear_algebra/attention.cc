#include "kernels/shapes/linear_algebra/attention.h"

#include <cmath>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

/// query (dtype kUndefined: float32 or float64), key and value (the query's dtype).
Result<const Tensor*> attention_operand(const KernelCall& call, size_t idx, std::string_view name,
                                        DType dtype) {
  TIR_ASSIGN_OR_RETURN(const Tensor* t, tensor_arg(call, idx, name));
  if (dtype == DType::kUndefined && t->dtype != DType::kFloat32 && t->dtype != DType::kFloat64)
    return op_error(call, StatusCode::kUnsupported, name, " has dtype ", dtype_name(t->dtype),
                    " (float32 or float64 expected)");
  if (dtype != DType::kUndefined) TIR_RETURN_IF_ERROR(require_dtype(call, *t, dtype, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  return t;
}

struct AttentionArgs {
  size_t mask_pos, dropout_pos, causal_pos, scale_pos;
  int gqa_pos;  // -1: no enable_gqa argument
  bool allow_bool_mask;
};

// Checks that query, key and value are [B, L, E] or [*batch, H, L, E] (torch takes any number
// of batch dims: NesT, Twins and Hiera attend over [B, T, H, L, E]) with consistent sizes, and
// reads those sizes; several batch dims are one (the kernels index contiguous tensors).
Result<AttentionParams> attention_sizes(const KernelCall& call, const Tensor& q, const Tensor& k,
                                        const Tensor& v, bool gqa) {
  const int r = q.rank;
  if (r < 3 || k.rank != r || v.rank != r) {
    return op_error(call, StatusCode::kUnsupported, "query ", shape_str(q.shape()), ", key ",
                    shape_str(k.shape()), " and value ", shape_str(v.shape()),
                    " must all be 3-D or more, of one rank");
  }
  AttentionParams p;
  p.batch = r == 3 ? q.sizes[0] : prod(q.shape(), 0, size_t(r - 3));
  for (int d = 0; d + 3 < r; ++d)
    if (k.sizes[d] != q.sizes[d] || v.sizes[d] != q.sizes[d])
      return op_error(call, StatusCode::kUnsupported, "query ", shape_str(q.shape()), ", key ",
                      shape_str(k.shape()), " and value ", shape_str(v.shape()),
                      " differ in batch dim ", d, " (broadcast batch dims are not supported)");
  p.heads = r >= 4 ? q.sizes[r - 3] : 1;
  p.kv_heads = r >= 4 ? k.sizes[r - 3] : 1;
  p.l = q.size(-2);
  p.e = q.size(-1);
  p.s = k.size(-2);
  p.ev = v.size(-1);
  if (k.sizes[0] != q.sizes[0] || v.sizes[0] != q.sizes[0] || v.size(-2) != p.s ||
      k.size(-1) != p.e || (r >= 4 && v.sizes[r - 3] != p.kv_heads)) {
    return op_error(call, StatusCode::kInvalidArgument, "query ", shape_str(q.shape()), ", key ",
                    shape_str(k.shape()), " and value ", shape_str(v.shape()),
                    " have inconsistent batch, sequence or head sizes");
  }
  // Without enable_gqa torch broadcasts the head dim: one key/value head (multi-query
  // attention passed unexpanded) serves every query head, the same mapping as GQA's.
  const bool broadcast = r >= 4 && p.kv_heads == 1;
  if (p.kv_heads != p.heads && !broadcast &&
      !(gqa && p.kv_heads > 0 && p.heads % p.kv_heads == 0)) {
    return op_error(call, StatusCode::kInvalidArgument, "query has ", p.heads, " heads and key ",
                    p.kv_heads,
                    gqa ? " (enable_gqa needs query heads divisible by key heads)"
                        : " (heads broadcast only from 1; set enable_gqa for grouped-query "
                          "attention)");
  }
  return p;
}

// Reads the optional attn_mask: its kind (bool or float) and its strides over the scores
// [B, H, L, S] it broadcasts to.
Status attention_mask(const KernelCall& call, const AttentionArgs& a, const Tensor& q,
                      AttentionParams* p) {
  TIR_ASSIGN_OR_RETURN(const Tensor* m, optional_tensor_arg(call, a.mask_pos, "attn_mask"));
  if (m == nullptr) return ok_status();
  if (p->causal) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "attn_mask must not be set when is_causal=True");
  }
  TIR_RETURN_IF_ERROR(require_contiguous(call, *m, "attn_mask"));
  if (m->dtype == DType::kBool && a.allow_bool_mask) {
    p->mask = AttentionParams::Mask::kBool;
  } else if (m->dtype == q.dtype) {
    p->mask = AttentionParams::Mask::kFloat;
  } else {
    return op_error(call, StatusCode::kUnsupported, "attn_mask has dtype ", dtype_name(m->dtype),
                    a.allow_bool_mask ? " (bool or the query's " : " (the query's ",
                    dtype_name(q.dtype), " expected)");
  }
  const int r = q.rank;
  std::vector<int64_t> target(q.shape().begin(), q.shape().end() - 1);
  target.push_back(p->s);
  auto b = broadcast_shapes(call, m->shape(), target);
  if (!b.ok() || *b != target) {
    return op_error(call, StatusCode::kInvalidArgument, "attn_mask ", shape_str(m->shape()),
                    " does not broadcast to the scores ", shape_str(target));
  }
  const BroadcastPlan plan = make_broadcast_plan(target, m->shape(), target);
  // The batch dims as one: the mask's stride over them must be one stride (or 0, broadcast).
  const int batch_dims = r == 3 ? 1 : r - 3;
  int64_t batch_stride = plan.a_strides[batch_dims - 1];
  for (int d = batch_dims - 2; d >= 0; --d) {
    const int64_t inner = plan.a_strides[d + 1] * target[size_t(d + 1)];
    if (target[size_t(d)] != 1 && plan.a_strides[d] != (batch_stride == 0 ? 0 : inner))
      return op_error(call, StatusCode::kUnsupported, "attn_mask ", shape_str(m->shape()),
                      " broadcasts over some batch dims of the scores ", shape_str(target),
                      " but not others");
  }
  p->mask_strides = {batch_stride, r >= 4 ? plan.a_strides[r - 3] : 0, plan.a_strides[r - 2],
                     plan.a_strides[r - 1]};
  p->mask_input = static_cast<int>(tensor_input_index(call, a.mask_pos));
  return ok_status();
}

Result<AttentionParams> prepare_common(const KernelCall& call, const AttentionArgs& a) {
  TIR_ASSIGN_OR_RETURN(const Tensor* q, attention_operand(call, 0, "query", DType::kUndefined));
  TIR_ASSIGN_OR_RETURN(const Tensor* k, attention_operand(call, 1, "key", q->dtype));
  TIR_ASSIGN_OR_RETURN(const Tensor* v, attention_operand(call, 2, "value", q->dtype));
  TIR_ASSIGN_OR_RETURN(double dropout, scalar_arg(call, a.dropout_pos, "dropout_p"));
  TIR_ASSIGN_OR_RETURN(bool causal, bool_arg(call, a.causal_pos, "is_causal"));
  bool gqa = false;
  if (a.gqa_pos >= 0) {
    TIR_ASSIGN_OR_RETURN(gqa, bool_arg(call, a.gqa_pos, "enable_gqa"));
  }
  if (dropout != 0.0) {
    return op_error(call, StatusCode::kUnsupported, "dropout_p = ", dropout,
                    " is not supported (export in eval mode)");
  }
  TIR_ASSIGN_OR_RETURN(AttentionParams p, attention_sizes(call, *q, *k, *v, gqa));
  const Arg& sa = call.args[a.scale_pos];
  if (sa.is_none()) {
    p.scale = p.e > 0 ? 1.0 / std::sqrt(static_cast<double>(p.e)) : 1.0;
  } else {
    TIR_ASSIGN_OR_RETURN(p.scale, scalar_arg(call, a.scale_pos, "scale"));
  }
  p.causal = causal;
  p.dtype = q->dtype;
  TIR_RETURN_IF_ERROR(attention_mask(call, a, *q, &p));
  p.q_input = static_cast<int>(tensor_input_index(call, 0));
  p.k_input = static_cast<int>(tensor_input_index(call, 1));
  p.v_input = static_cast<int>(tensor_input_index(call, 2));
  std::vector<int64_t> out(q->shape().begin(), q->shape().end());
  out.back() = p.ev;
  call.outputs[0].dtype = q->dtype;
  call.outputs[0].set_shape(out);
  return p;
}

}  // namespace

Result<AttentionParams> attention_prepare_sdpa(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 1));
  TIR_ASSIGN_OR_RETURN(AttentionParams p, prepare_common(call, {3, 4, 5, 6, 7, true}));
  out_info->scratch_bytes = attention_ref_scratch_bytes(p);
  return p;
}

Result<AttentionParams> attention_prepare_flash_cpu(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 7, 2));
  TIR_ASSIGN_OR_RETURN(AttentionParams p, prepare_common(call, {5, 3, 4, 6, -1, false}));
  if (call.inputs[p.q_input].rank != 4) {
    return op_error(call, StatusCode::kInvalidArgument, "query must be 4-D [B, H, L, E]");
  }
  p.with_lse = true;
  call.outputs[1].dtype = p.dtype;
  call.outputs[1].set_shape({p.batch, p.heads, p.l});
  out_info->scratch_bytes = attention_ref_scratch_bytes(p);
  return p;
}

}  // namespace tir::kernels
