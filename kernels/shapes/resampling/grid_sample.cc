#include "kernels/shapes/resampling/grid_sample.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

Result<GridSampleParams> grid_sample_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_ASSIGN_OR_RETURN(const Tensor* g, tensor_arg(call, 1, "grid"));
  if (x->dtype != DType::kFloat64)
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *g, x->dtype, "grid"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *g, "grid"));
  if (x->rank != 4 || g->rank != 4 || g->sizes[3] != 2 || g->sizes[0] != x->sizes[0]) {
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " must be [N, C, H, W] and grid ", shape_str(g->shape()), " [N, Ho, Wo, 2]");
  }
  if (x->sizes[2] == 0 || x->sizes[3] == 0) {
    return op_error(call, StatusCode::kInvalidArgument, "input ", shape_str(x->shape()),
                    " has an empty spatial dim");
  }
  GridSampleParams p;
  TIR_ASSIGN_OR_RETURN(const int64_t mode, int_arg(call, 2, "interpolation_mode"));
  TIR_ASSIGN_OR_RETURN(const int64_t padding, int_arg(call, 3, "padding_mode"));
  if (mode < 0 || mode > 2 || padding < 0 || padding > 2) {
    return op_error(call, StatusCode::kInvalidArgument, "interpolation_mode ", mode,
                    " and padding_mode ", padding,
                    " must be 0-2 (bilinear/nearest/bicubic, zeros/border/reflection)");
  }
  p.mode = static_cast<GridInterpolation>(mode);
  p.padding = static_cast<GridPadding>(padding);
  TIR_ASSIGN_OR_RETURN(p.align_corners, bool_arg(call, 4, "align_corners"));
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.grid = static_cast<int>(tensor_input_index(call, 1));
  p.n = x->sizes[0];
  p.c = x->sizes[1];
  p.h = x->sizes[2];
  p.w = x->sizes[3];
  p.oh = g->sizes[1];
  p.ow = g->sizes[2];
  p.dtype = x->dtype;
  call.outputs[0].dtype = x->dtype;
  call.outputs[0].set_shape({p.n, p.c, p.oh, p.ow});
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
