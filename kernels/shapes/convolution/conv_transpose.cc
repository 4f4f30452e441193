#include "kernels/shapes/convolution/conv_transpose.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

/// An int[] parameter of `spatial` values (one value repeats) into the last `spatial` of `out`.
Status read_param(const KernelCall& call, size_t idx, const char* name, int spatial,
                  std::array<int64_t, 3>* out) {
  TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, idx, name));
  if (v.size() != 1 && v.size() != size_t(spatial))
    return op_error(call, StatusCode::kInvalidArgument, name, " ", shape_str(v), " must have 1 or ",
                    spatial, " elements");
  for (int d = 0; d < spatial; ++d) (*out)[3 - spatial + d] = v.size() == 1 ? v[0] : v[d];
  return ok_status();
}

}  // namespace

Result<ConvTransposeParams> conv_prepare_transpose(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_ASSIGN_OR_RETURN(const Tensor* wt, tensor_arg(call, 1, "weight"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, optional_tensor_arg(call, 2, "bias"));
  for (const auto& [t, name] :
       {std::pair{x, "input"}, std::pair{wt, "weight"}, std::pair{b, "bias"}}) {
    if (t == nullptr) continue;
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, DType::kFloat32, name));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  }
  ConvTransposeParams p;
  p.spatial = wt->rank - 2;
  if (p.spatial < 1 || p.spatial > 3)
    return op_error(call, StatusCode::kInvalidArgument,
                    "weight must be 3-D, 4-D or 5-D [C, OC/groups, *kernel], got ",
                    shape_str(wt->shape()));
  const bool batched = x->rank == p.spatial + 2;
  if (!batched && x->rank != p.spatial + 1)
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " must be ", p.spatial + 2, "-D [N, C, ...] or ", p.spatial + 1,
                    "-D for weight ", shape_str(wt->shape()));
  std::array<int64_t, 3> out_pad{0, 0, 0};
  TIR_RETURN_IF_ERROR(read_param(call, 3, "stride", p.spatial, &p.stride));
  TIR_RETURN_IF_ERROR(read_param(call, 4, "padding", p.spatial, &p.pad));
  TIR_RETURN_IF_ERROR(read_param(call, 5, "output_padding", p.spatial, &out_pad));
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 6, "groups"));
  TIR_RETURN_IF_ERROR(read_param(call, 7, "dilation", p.spatial, &p.dil));
  const int off = batched ? 1 : 0;
  p.n = batched ? x->sizes[0] : 1;
  p.c = x->sizes[off];
  if (p.groups <= 0 || p.c % p.groups != 0 || wt->sizes[0] != p.c)
    return op_error(call, StatusCode::kInvalidArgument, "weight ", shape_str(wt->shape()),
                    " does not match input ", shape_str(x->shape()), " with groups=", p.groups,
                    " (expected weight.size(0) == input channels, divisible by groups)");
  p.oc = wt->sizes[1] * p.groups;
  if (b != nullptr && (b->rank != 1 || b->sizes[0] != p.oc))
    return op_error(call, StatusCode::kInvalidArgument, "bias ", shape_str(b->shape()),
                    " must be [", p.oc, "]");
  std::vector<int64_t> shape;
  if (batched) shape.push_back(p.n);
  shape.push_back(p.oc);
  for (int d = 3 - p.spatial; d < 3; ++d) {
    const int s = d - (3 - p.spatial);
    p.in[d] = x->sizes[off + 1 + s];
    p.k[d] = wt->sizes[2 + s];
    if (p.stride[d] <= 0 || p.dil[d] <= 0 || p.pad[d] < 0 || out_pad[d] < 0 ||
        out_pad[d] >= std::max(p.stride[d], p.dil[d]))
      return op_error(call, StatusCode::kInvalidArgument,
                      "stride and dilation must be positive, padding non-negative and "
                      "output_padding smaller than stride or dilation");
    p.out[d] =
        (p.in[d] - 1) * p.stride[d] - 2 * p.pad[d] + p.dil[d] * (p.k[d] - 1) + out_pad[d] + 1;
    if (p.out[d] <= 0)
      return op_error(call, StatusCode::kInvalidArgument, "the output of input ",
                      shape_str(x->shape()), " would have a non-positive size");
    shape.push_back(p.out[d]);
  }
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.weight = static_cast<int>(tensor_input_index(call, 1));
  p.bias = b ? static_cast<int>(tensor_input_index(call, 2)) : -1;
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(shape);
  return p;
}

}  // namespace tir::kernels
