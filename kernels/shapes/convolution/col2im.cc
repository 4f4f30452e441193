#include "kernels/shapes/convolution/col2im.h"

#include "kernels/kernel_util.h"

namespace tir::kernels {

namespace {

// Reads the int[2] arguments from schema position `first` on (output_size first for col2im)
// and computes the block grid over the image p->out.
Status window_args(const KernelCall& call, size_t first, bool with_output_size, Col2imParams* p,
                   int64_t* out_blocks) {
  const char* names[5] = {"output_size", "kernel_size", "dilation", "padding", "stride"};
  std::array<int64_t, 2>* fields[5] = {&p->out, &p->kernel, &p->dil, &p->pad, &p->stride};
  for (size_t i = with_output_size ? 0 : 1; i < 5; ++i) {
    TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, first++, names[i]));
    TIR_ASSIGN_OR_RETURN(*fields[i], expand_param(call, v, names[i]));
  }
  int64_t blocks = 1;
  for (int d = 0; d < 2; ++d) {
    if (p->kernel[d] <= 0 || p->dil[d] <= 0 || p->stride[d] <= 0 || p->pad[d] < 0 ||
        p->out[d] <= 0) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "image size, kernel_size, dilation and stride must be positive, padding "
                      "non-negative");
    }
    p->blocks[d] =
        (p->out[d] + 2 * p->pad[d] - p->dil[d] * (p->kernel[d] - 1) - 1) / p->stride[d] + 1;
    if (p->blocks[d] < 1) {
      return op_error(call, StatusCode::kInvalidArgument, "image ", p->out[0], "x", p->out[1],
                      " is smaller than one (dilated, padded) kernel window");
    }
    blocks *= p->blocks[d];
  }
  *out_blocks = blocks;
  return ok_status();
}

Result<const Tensor*> float_self(const KernelCall& call, int rank_lo, const char* forms) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->rank != rank_lo && x->rank != rank_lo + 1) {
    return op_error(call, StatusCode::kInvalidArgument, "self must be ", forms, ", got ",
                    shape_str(x->shape()));
  }
  return x;
}

}  // namespace

Result<Col2imParams> im2col_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_self(call, 3, "3-D [C, H, W] or 4-D [N, C, H, W]"));
  Col2imParams p;
  p.out = {x->size(-2), x->size(-1)};
  int64_t blocks = 0;
  TIR_RETURN_IF_ERROR(window_args(call, 1, false, &p, &blocks));
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.n = x->rank == 4 ? x->sizes[0] : 1;
  p.c = x->size(-3);
  const int64_t rows = p.c * p.kernel[0] * p.kernel[1];
  call.outputs[0].dtype = DType::kFloat32;
  if (x->rank == 4) {
    call.outputs[0].set_shape({p.n, rows, blocks});
  } else {
    call.outputs[0].set_shape({rows, blocks});
  }
  (void)out_info;
  return p;
}

Result<Col2imParams> col2im_prepare(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x,
                       float_self(call, 2, "2-D [C * kh * kw, L] or 3-D [N, C * kh * kw, L]"));
  Col2imParams p;
  int64_t blocks = 0;
  TIR_RETURN_IF_ERROR(window_args(call, 1, true, &p, &blocks));
  const int64_t rows = x->size(-2), cols = x->size(-1), kk = p.kernel[0] * p.kernel[1];
  if (rows % kk != 0 || cols != blocks) {
    return op_error(call, StatusCode::kInvalidArgument, "self ", shape_str(x->shape()),
                    " must be [N, C * ", kk, ", ", blocks,
                    "] for these kernel_size, output_size, padding, dilation and stride");
  }
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.n = x->rank == 3 ? x->sizes[0] : 1;
  p.c = rows / kk;
  call.outputs[0].dtype = DType::kFloat32;
  if (x->rank == 3) {
    call.outputs[0].set_shape({p.n, p.c, p.out[0], p.out[1]});
  } else {
    call.outputs[0].set_shape({p.c, p.out[0], p.out[1]});
  }
  (void)out_info;
  return p;
}

}  // namespace tir::kernels
