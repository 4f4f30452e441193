#include "kernels/shapes/movement/movement.h"

#include <algorithm>

namespace tir::kernels {
namespace {

Result<PadParams> pad_common(const KernelCall& call, const Tensor& x, std::span<const int64_t> pad,
                             PadMode mode) {
  if (pad.size() % 2 != 0 || pad.size() / 2 > static_cast<size_t>(x.rank))
    return op_error(call, StatusCode::kInvalidArgument, "pad ", shape_str(pad),
                    " needs an even length of at most twice the rank of self ",
                    shape_str(x.shape()));
  PadParams p;
  p.mode = mode;
  p.rank = x.rank;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.elem_size = dtype_size(x.dtype);
  p.dtype = x.dtype;
  for (int d = 0; d < x.rank; ++d) p.in_sizes[d] = p.out_sizes[d] = x.sizes[d];
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int d = x.rank - 1 - static_cast<int>(k);
    const int64_t lo = pad[2 * k], hi = pad[2 * k + 1], n = x.sizes[d];
    p.before[d] = lo;
    p.out_sizes[d] = n + lo + hi;
    if (p.out_sizes[d] < 0)
      return op_error(call, StatusCode::kInvalidArgument, "pad ", shape_str(pad),
                      " gives a negative size in dim ", d);
    if (mode == PadMode::kReflect && (lo >= n || hi >= n || lo < 0 || hi < 0))
      return op_error(call, StatusCode::kInvalidArgument, "reflection padding ", shape_str(pad),
                      " must be non-negative and smaller than dim ", d, " (", n, ")");
    if ((mode == PadMode::kReplicate || mode == PadMode::kCircular) && n == 0)
      return op_error(call, StatusCode::kInvalidArgument, "cannot pad the empty dim ", d);
    if (mode == PadMode::kCircular && (lo > n || hi > n))
      return op_error(call, StatusCode::kInvalidArgument, "circular padding ", shape_str(pad),
                      " exceeds dim ", d);
  }
  if (mode != PadMode::kConstant && !dtype_supported(x.dtype) && x.dtype != DType::kFloat16 &&
      x.dtype != DType::kBFloat16)
    return op_error(call, StatusCode::kUnsupported, "dtype ", dtype_name(x.dtype));
  call.outputs[0].dtype = x.dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(p.out_sizes.data(), p.rank));
  return p;
}

Status check_constant_dtype(const KernelCall& call, const PadParams& p) {
  if (dtype_valid(int(p.dtype))) return ok_status();  // scalar_to_element: every dtype
  return op_error(call, StatusCode::kUnsupported, "constant padding of ", dtype_name(p.dtype),
                  " tensors");
}

}  // namespace

Result<PadParams> movement_prepare_constant_pad(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(auto pad, ints_arg(call, 1, "pad"));
  TIR_ASSIGN_OR_RETURN(PadParams p, pad_common(call, *x, pad, PadMode::kConstant));
  if (call.args.size() > 2 && !call.args[2].is_none()) p.value = scalar_value(call.args[2]);
  TIR_RETURN_IF_ERROR(check_constant_dtype(call, p));
  return p;
}

Result<PadParams> movement_prepare_pad(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 4));
  TIR_ASSIGN_OR_RETURN(auto pad, ints_arg(call, 1, "pad"));
  const Arg& m = call.args[2];
  PadMode mode = PadMode::kConstant;
  if (m.kind == ArgKind::kString && m.s == "reflect") {
    mode = PadMode::kReflect;
  } else if (m.kind == ArgKind::kString && m.s == "replicate") {
    mode = PadMode::kReplicate;
  } else if (m.kind == ArgKind::kString && m.s == "circular") {
    mode = PadMode::kCircular;
  } else if (m.kind == ArgKind::kString && m.s != "constant") {
    return op_error(call, StatusCode::kInvalidArgument, "unknown padding mode '", m.s, "'");
  }
  TIR_ASSIGN_OR_RETURN(PadParams p, pad_common(call, *x, pad, mode));
  if (!call.args[3].is_none()) {
    if (mode != PadMode::kConstant)
      return op_error(call, StatusCode::kInvalidArgument, "a padding value needs mode 'constant'");
    p.value = scalar_value(call.args[3]);
  }
  if (mode == PadMode::kConstant) TIR_RETURN_IF_ERROR(check_constant_dtype(call, p));
  return p;
}

template <PadMode Mode, int Dims>
Result<PadParams> movement_prepare_pad_nd(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 2));
  TIR_ASSIGN_OR_RETURN(auto pad, ints_arg(call, 1, "padding"));
  if (pad.size() != 2 * Dims || x->rank < Dims || x->rank > Dims + 2)
    return op_error(call, StatusCode::kInvalidArgument, "needs ", 2 * Dims,
                    " padding values and a self of rank ", Dims, " to ", Dims + 2, ", got ",
                    shape_str(pad), " and ", shape_str(x->shape()));
  return pad_common(call, *x, pad, Mode);
}

template Result<PadParams> movement_prepare_pad_nd<PadMode::kReflect, 1>(const KernelCall&,
                                                                         PrepareInfo*);
template Result<PadParams> movement_prepare_pad_nd<PadMode::kReflect, 2>(const KernelCall&,
                                                                         PrepareInfo*);
template Result<PadParams> movement_prepare_pad_nd<PadMode::kReflect, 3>(const KernelCall&,
                                                                         PrepareInfo*);
template Result<PadParams> movement_prepare_pad_nd<PadMode::kReplicate, 1>(const KernelCall&,
                                                                           PrepareInfo*);
template Result<PadParams> movement_prepare_pad_nd<PadMode::kReplicate, 2>(const KernelCall&,
                                                                           PrepareInfo*);
template Result<PadParams> movement_prepare_pad_nd<PadMode::kReplicate, 3>(const KernelCall&,
                                                                           PrepareInfo*);

namespace {

ViewParams strided_copy(const KernelCall& call, const Tensor& x) {
  ViewParams p;
  p.copy = true;
  p.permute = true;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.elem_size = dtype_size(x.dtype);
  return p;
}

void finish(const KernelCall& call, const Tensor& x, const ViewParams& p) {
  call.outputs[0].dtype = x.dtype;
  call.outputs[0].set_shape(std::span<const int64_t>(p.out_sizes.data(), p.rank));
}

}  // namespace

Result<ViewParams> movement_prepare_numpy_t(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 1));
  ViewParams p = strided_copy(call, *x);
  p.rank = x->rank;
  for (int d = 0; d < x->rank; ++d) {
    p.out_sizes[d] = x->sizes[x->rank - 1 - d];
    p.in_strides[d] = x->strides[x->rank - 1 - d];
  }
  finish(call, *x, p);
  return p;
}

Result<ViewParams> movement_prepare_as_strided(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 4));
  TIR_ASSIGN_OR_RETURN(auto size, ints_arg(call, 1, "size"));
  TIR_ASSIGN_OR_RETURN(auto stride, ints_arg(call, 2, "stride"));
  if (size.size() != stride.size() || size.size() > static_cast<size_t>(kMaxRank))
    return op_error(call, StatusCode::kInvalidArgument, "size ", shape_str(size), " and stride ",
                    shape_str(stride), " must have the same length, at most ", kMaxRank);
  ViewParams p = strided_copy(call, *x);
  p.rank = static_cast<int>(size.size());
  if (!call.args[3].is_none()) {
    TIR_ASSIGN_OR_RETURN(p.in_offset, int_arg(call, 3, "storage_offset"));
  }
  int64_t last = p.in_offset, numel = 1;
  for (int d = 0; d < p.rank; ++d) {
    if (size[d] < 0 || stride[d] < 0)
      return op_error(call, StatusCode::kInvalidArgument, "negative size or stride");
    p.out_sizes[d] = size[d];
    p.in_strides[d] = stride[d];
    last += (size[d] - 1) * stride[d];
    numel *= size[d];
  }
  // tir tensors own dense buffers: the view may only reach self's own elements.
  if (numel > 0 && (p.in_offset < 0 || last >= x->numel()))
    return op_error(call, StatusCode::kUnsupported, "as_strided with size ", shape_str(size),
                    ", stride ", shape_str(stride), " and offset ", p.in_offset,
                    " reaches beyond the ", x->numel(), " elements of self");
  finish(call, *x, p);
  return p;
}

Result<ViewParams> movement_prepare_diagonal(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_ASSIGN_OR_RETURN(const Tensor* x, self_operand(call, 4));
  if (x->rank < 2) return op_error(call, StatusCode::kInvalidArgument, "self must be at least 2-D");
  TIR_ASSIGN_OR_RETURN(const int64_t offset, int_arg(call, 1, "offset"));
  TIR_ASSIGN_OR_RETURN(const int64_t d1_arg, int_arg(call, 2, "dim1"));
  TIR_ASSIGN_OR_RETURN(const int64_t d2_arg, int_arg(call, 3, "dim2"));
  TIR_ASSIGN_OR_RETURN(const int d1, normalize_dim(call, d1_arg, x->rank, "dim1"));
  TIR_ASSIGN_OR_RETURN(const int d2, normalize_dim(call, d2_arg, x->rank, "dim2"));
  if (d1 == d2) return op_error(call, StatusCode::kInvalidArgument, "dim1 and dim2 are the same");
  ViewParams p = strided_copy(call, *x);
  for (int d = 0; d < x->rank; ++d) {
    if (d == d1 || d == d2) continue;
    p.out_sizes[p.rank] = x->sizes[d];
    p.in_strides[p.rank++] = x->strides[d];
  }
  int64_t len = 0;
  if (offset >= 0) {
    len = std::max<int64_t>(0, std::min(x->sizes[d1], x->sizes[d2] - offset));
    if (len > 0) p.in_offset = offset * x->strides[d2];
  } else {
    len = std::max<int64_t>(0, std::min(x->sizes[d1] + offset, x->sizes[d2]));
    if (len > 0) p.in_offset = -offset * x->strides[d1];
  }
  p.out_sizes[p.rank] = len;
  p.in_strides[p.rank++] = x->strides[d1] + x->strides[d2];
  finish(call, *x, p);
  return p;
}

Result<CopyIntoParams> movement_prepare_copy(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* src, tensor_arg(call, 1, "src"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *self, "self"));
  TIR_RETURN_IF_ERROR(require_supported_dtype(call, *src, "src"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *src, "src"));
  CopyIntoParams p;
  p.src = static_cast<int>(tensor_input_index(call, 1));
  p.from = src->dtype;
  p.to = self->dtype;
  const std::span<const int64_t> shapes[2] = {self->shape(), src->shape()};
  TIR_ASSIGN_OR_RETURN(p.plan, make_nary_plan(call, shapes));
  if (p.plan.rank != self->rank ||
      !std::equal(self->shape().begin(), self->shape().end(), p.plan.sizes.begin()))
    return op_error(call, StatusCode::kInvalidArgument, "src ", shape_str(src->shape()),
                    " does not broadcast to self ", shape_str(self->shape()));
  call.outputs[0].dtype = self->dtype;
  call.outputs[0].set_shape(self->shape());
  return p;
}

Result<CopyIntoParams> movement_prepare_copy_(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(CopyIntoParams p, movement_prepare_copy(call, out_info));
  out_info->output_alias[0] = static_cast<int8_t>(tensor_input_index(call, 0));  // writes self
  return p;
}

}  // namespace tir::kernels
