#include "kernels/shapes/pooling/pool3d.h"

#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/pooling/pool.h"

namespace tir::kernels {
namespace {

// `int64_ok`: max pooling also takes int64 and float64.
Result<Pool3dParams> volume_input(const KernelCall& call, bool int64_ok) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  if (!int64_ok || (x->dtype != DType::kInt64 && x->dtype != DType::kFloat64))
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->rank != 4 && x->rank != 5) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "self must be 4-D [C, D, H, W] or 5-D [N, C, D, H, W], got ",
                    shape_str(x->shape()));
  }
  Pool3dParams p;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.planes = prod(x->shape(), 0, x->rank - 3);
  for (int d = 0; d < 3; ++d) {
    p.in[d] = x->size(d - 3);
    if (p.in[d] == 0) {
      return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(x->shape()),
                      " has an empty non-batch dim");
    }
  }
  return p;
}

// Sets every output to self's leading dims followed by p.out.
void set_outputs(const KernelCall& call, const Pool3dParams& p) {
  const Tensor& x = call.inputs[p.input];
  std::array<int64_t, 5> shape{};
  for (int d = 0; d < x.rank - 3; ++d) shape[d] = x.sizes[d];
  for (int d = 0; d < 3; ++d) shape[x.rank - 3 + d] = p.out[d];
  for (size_t o = 0; o < call.outputs.size(); ++o) {
    call.outputs[o].dtype = o == 0 ? x.dtype : DType::kInt64;
    call.outputs[o].set_shape(std::span<const int64_t>(shape.data(), x.rank));
  }
}

// ATen int[3] semantics: one value means all three dims; empty takes `fallback`.
Status expand3(const KernelCall& call, size_t idx, const char* name,
               const std::array<int64_t, 3>* fallback, std::array<int64_t, 3>* out) {
  TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, idx, name));
  if (v.empty() && fallback) {
    *out = *fallback;
  } else if (v.size() == 1) {
    *out = {v[0], v[0], v[0]};
  } else if (v.size() == 3) {
    *out = {v[0], v[1], v[2]};
  } else {
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                    "' must have 1 or 3 values, got ", shape_str(v));
  }
  return ok_status();
}

}  // namespace

Result<Pool3dParams> pool3d_prepare_adaptive_avg(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(Pool3dParams p, volume_input(call, false));
  TIR_ASSIGN_OR_RETURN(auto os, ints_arg(call, 1, "output_size"));
  if (os.size() != 3 || os[0] < 0 || os[1] < 0 || os[2] < 0) {
    return op_error(call, StatusCode::kInvalidArgument,
                    "output_size must be 3 non-negative ints, got ", shape_str(os));
  }
  p.out = {os[0], os[1], os[2]};
  set_outputs(call, p);
  (void)out_info;
  return p;
}

Result<Pool3dParams> pool3d_prepare_adaptive_avg1d(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 2, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->rank != 2 && x->rank != 3)
    return op_error(call, StatusCode::kInvalidArgument,
                    "self must be 2-D [C, L] or 3-D [N, C, L], got ", shape_str(x->shape()));
  TIR_ASSIGN_OR_RETURN(auto os, ints_arg(call, 1, "output_size"));
  if (os.size() != 1 || os[0] < 0 || x->size(-1) == 0)
    return op_error(call, StatusCode::kInvalidArgument, "output_size ", shape_str(os),
                    " must be one non-negative int and self ", shape_str(x->shape()),
                    " non-empty along L");
  Pool3dParams p;  // a volume of 1 x 1 x L per plane
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.planes = prod(x->shape(), 0, x->rank - 1);
  p.in = {1, 1, x->size(-1)};
  p.out = {1, 1, os[0]};
  std::vector<int64_t> shape(x->shape().begin(), x->shape().end());
  shape.back() = os[0];
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape(shape);
  return p;
}

namespace {

// max_pool3d has one output (values), max_pool3d_with_indices two; same arguments.
Result<Pool3dParams> max_prepare(const KernelCall& call, bool indices) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, indices ? 2 : 1));
  TIR_ASSIGN_OR_RETURN(Pool3dParams p, volume_input(call, true));
  const std::array<int64_t, 3> zero{0, 0, 0}, one{1, 1, 1};
  TIR_RETURN_IF_ERROR(expand3(call, 1, "kernel_size", nullptr, &p.kernel));
  TIR_RETURN_IF_ERROR(expand3(call, 2, "stride", &p.kernel, &p.stride));
  TIR_RETURN_IF_ERROR(expand3(call, 3, "padding", &zero, &p.pad));
  TIR_RETURN_IF_ERROR(expand3(call, 4, "dilation", &one, &p.dil));
  TIR_ASSIGN_OR_RETURN(const bool ceil_mode, bool_arg(call, 5, "ceil_mode"));
  for (int d = 0; d < 3; ++d) {
    if (p.kernel[d] <= 0 || p.stride[d] <= 0 || p.dil[d] <= 0 || p.pad[d] < 0) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "kernel_size, stride and dilation must be positive, padding non-negative");
    }
    if (2 * p.pad[d] > p.kernel[d]) {
      return op_error(call, StatusCode::kInvalidArgument, "padding ", p.pad[d],
                      " must be at most half of kernel_size ", p.kernel[d]);
    }
    p.out[d] = pooled_size(p.in[d], p.kernel[d], p.pad[d], p.stride[d], p.dil[d], ceil_mode);
    if (p.out[d] < 1) {
      return op_error(call, StatusCode::kInvalidArgument, "input ",
                      shape_str(call.inputs[p.input].shape()),
                      " is too small for the pooling window");
    }
  }
  set_outputs(call, p);
  return p;
}

}  // namespace

Result<Pool3dParams> pool3d_prepare_max(const KernelCall& call, PrepareInfo*) {
  return max_prepare(call, /*indices=*/false);
}

Result<Pool3dParams> pool3d_prepare_max_with_indices(const KernelCall& call, PrepareInfo*) {
  return max_prepare(call, /*indices=*/true);
}

}  // namespace tir::kernels
