#include "kernels/shapes/pooling/pool.h"

#include <algorithm>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

// `channels_last`: x may also be a channels-last [N, C, H, W]. `int64_ok`: max pooling also
// takes int64 and float64, `float64_ok`: float64 (only the reference kernels take them).
Status check_image_input(const KernelCall& call, const Tensor& x, bool channels_last = false,
                         bool int64_ok = false, bool float64_ok = false) {
  const bool other = (int64_ok && x.dtype == DType::kInt64) ||
                     ((int64_ok || float64_ok) && x.dtype == DType::kFloat64);
  if (!other) TIR_RETURN_IF_ERROR(require_dtype(call, x, DType::kFloat32, "self"));
  if (!channels_last || !x.is_channels_last())
    TIR_RETURN_IF_ERROR(require_contiguous(call, x, "self"));
  if (x.rank != 3 && x.rank != 4) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "self must be 3-D [C, H, W] or 4-D [N, C, H, W], got ", shape_str(x.shape()));
  }
  for (int d = x.rank - 3; d < x.rank; ++d) {
    if (x.sizes[d] == 0) {
      return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(x.shape()),
                      " has an empty non-batch dim");
    }
  }
  return ok_status();
}

Result<MaxPoolParams> max_pool_common(const KernelCall& call) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(check_image_input(call, *x, false, true));
  MaxPoolParams p;
  TIR_ASSIGN_OR_RETURN(auto k, ints_arg(call, 1, "kernel_size"));
  TIR_ASSIGN_OR_RETURN(p.kernel, expand_param(call, k, "kernel_size"));
  TIR_ASSIGN_OR_RETURN(auto s, ints_arg(call, 2, "stride"));
  TIR_ASSIGN_OR_RETURN(p.stride, expand_param(call, s, "stride", p.kernel));
  TIR_ASSIGN_OR_RETURN(auto pad, ints_arg(call, 3, "padding"));
  TIR_ASSIGN_OR_RETURN(p.pad, expand_param(call, pad, "padding"));
  TIR_ASSIGN_OR_RETURN(auto dil, ints_arg(call, 4, "dilation"));
  TIR_ASSIGN_OR_RETURN(p.dil, expand_param(call, dil, "dilation"));
  TIR_ASSIGN_OR_RETURN(p.ceil_mode, bool_arg(call, 5, "ceil_mode"));
  for (int i = 0; i < 2; ++i) {
    if (p.kernel[i] <= 0 || p.stride[i] <= 0 || p.dil[i] <= 0 || p.pad[i] < 0) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "kernel_size, stride and dilation must be positive, padding non-negative");
    }
    if (2 * p.pad[i] > p.kernel[i]) {
      return op_error(call, StatusCode::kInvalidArgument, "padding ", p.pad[i],
                      " must be at most half of kernel_size ", p.kernel[i]);
    }
  }
  const bool batched = x->rank == 4;
  p.n = batched ? x->sizes[0] : 1;
  p.c = x->size(-3);
  p.h = x->size(-2);
  p.w = x->size(-1);
  p.oh = pooled_size(p.h, p.kernel[0], p.pad[0], p.stride[0], p.dil[0], p.ceil_mode);
  p.ow = pooled_size(p.w, p.kernel[1], p.pad[1], p.stride[1], p.dil[1], p.ceil_mode);
  if (p.oh < 1 || p.ow < 1) {
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " is too small: output size would be ", p.oh, "x", p.ow);
  }
  p.input = static_cast<int>(tensor_input_index(call, 0));
  for (size_t o = 0; o < call.outputs.size(); ++o) {
    call.outputs[o].dtype = o == 0 ? x->dtype : DType::kInt64;
    if (batched) {
      call.outputs[o].set_shape({p.n, p.c, p.oh, p.ow});
    } else {
      call.outputs[o].set_shape({p.c, p.oh, p.ow});
    }
  }
  return p;
}

}  // namespace

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t q = num / stride;
  if (num % stride != 0 && num < 0) --q;  // round toward -inf
  int64_t out = q + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

Result<MaxPoolParams> pool_prepare_max_pool2d(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  (void)out_info;
  return max_pool_common(call);
}

Result<MaxPoolParams> pool_prepare_max_pool2d_with_indices(const KernelCall& call,
                                                           PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 2));
  (void)out_info;
  return max_pool_common(call);
}

namespace {

Result<AdaptivePoolParams> adaptive_avg_common(const KernelCall& call, bool channels_last) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(check_image_input(call, *x, channels_last, false, !channels_last));
  TIR_ASSIGN_OR_RETURN(auto os, ints_arg(call, 1, "output_size"));
  if (os.size() != 2 || os[0] < 0 || os[1] < 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "output_size must be 2 non-negative ints, got ", shape_str(os));
  }
  AdaptivePoolParams p;
  p.n = x->rank == 4 ? x->sizes[0] : 1;
  p.c = x->size(-3);
  p.planes = p.n * p.c;
  p.h = x->size(-2);
  p.w = x->size(-1);
  p.oh = os[0];
  p.ow = os[1];
  p.input = static_cast<int>(tensor_input_index(call, 0));
  std::array<int64_t, 4> out{};
  for (int d = 0; d < x->rank - 2; ++d) out[d] = x->sizes[d];
  out[x->rank - 2] = p.oh;
  out[x->rank - 1] = p.ow;
  Tensor& y = call.outputs[0];
  y.dtype = x->dtype;
  y.set_shape(std::span<const int64_t>(out.data(), x->rank));
  if (channels_last && call.channels_last && y.rank == 4) y.set_channels_last_strides();
  p.strided = !x->is_contiguous() || !y.is_contiguous();
  return p;
}

}  // namespace

Result<AdaptivePoolParams> pool_prepare_adaptive_avg_pool2d(const KernelCall& call,
                                                            PrepareInfo* out_info) {
  (void)out_info;
  return adaptive_avg_common(call, false);
}

template <int Dims>
Result<AdaptivePoolParams> pool_prepare_adaptive_max(const KernelCall& call,
                                                     PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 2));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  if (x->dtype != DType::kFloat64)  // float64 as torch's double kernel; else float32
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_ASSIGN_OR_RETURN(auto os, ints_arg(call, 1, "output_size"));
  if (x->rank != Dims + 1 && x->rank != Dims + 2)
    return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(x->shape()), " must be ",
                    Dims + 1, "-D or ", Dims + 2, "-D");
  if (static_cast<int>(os.size()) != Dims ||
      std::any_of(os.begin(), os.end(), [](int64_t v) { return v < 0; }))
    return op_error(call, StatusCode::kInvalidArgument, "output_size must be ", Dims,
                    " non-negative ints, got ", shape_str(os));
  for (int d = x->rank - Dims; d < x->rank; ++d)
    if (x->sizes[d] == 0)
      return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(x->shape()),
                      " has an empty pooled dim");
  AdaptivePoolParams p;
  p.planes = prod(x->shape(), 0, x->rank - Dims);
  p.h = Dims == 2 ? x->size(-2) : 1;
  p.w = x->size(-1);
  p.oh = Dims == 2 ? os[0] : 1;
  p.ow = os[Dims - 1];
  p.input = static_cast<int>(tensor_input_index(call, 0));
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  for (int d = 0; d < Dims; ++d) out[size_t(x->rank - Dims + d)] = os[size_t(d)];
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out);
  call.outputs[1].dtype = DType::kInt64;
  call.outputs[1].set_shape(out);
  return p;
}

template Result<AdaptivePoolParams> pool_prepare_adaptive_max<1>(const KernelCall&, PrepareInfo*);
template Result<AdaptivePoolParams> pool_prepare_adaptive_max<2>(const KernelCall&, PrepareInfo*);

Result<UnpoolParams> pool_prepare_max_unpool2d(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_ASSIGN_OR_RETURN(const Tensor* idx, tensor_arg(call, 1, "indices"));
  TIR_ASSIGN_OR_RETURN(auto os, ints_arg(call, 2, "output_size"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *idx, "indices"));
  if ((x->rank != 3 && x->rank != 4) || idx->dtype != DType::kInt64 || !idx->same_shape(*x) ||
      os.size() != 2 || os[0] < 0 || os[1] < 0 || dtype_size(x->dtype) == 0)
    return op_error(call, StatusCode::kInvalidArgument, "expects self [N, C, H, W] or [C, H, W], ",
                    "int64 indices of its shape and two output sizes; got ", shape_str(x->shape()),
                    ", ", dtype_name(idx->dtype), shape_str(idx->shape()), ", ", shape_str(os));
  UnpoolParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.indices = static_cast<int>(tensor_input_index(call, 1));
  p.elem_size = dtype_size(x->dtype);
  p.planes = prod(x->shape(), 0, x->rank - 2);
  p.in_plane = x->size(-2) * x->size(-1);
  p.out_plane = os[0] * os[1];
  std::vector<int64_t> out(x->shape().begin(), x->shape().end());
  out[size_t(x->rank - 2)] = os[0];
  out[size_t(x->rank - 1)] = os[1];
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(out);
  return p;
}

Result<AdaptivePoolParams> pool_prepare_adaptive_avg_pool2d_channels_last(const KernelCall& call,
                                                                          PrepareInfo* out_info) {
  (void)out_info;
  return adaptive_avg_common(call, true);
}

}  // namespace tir::kernels
