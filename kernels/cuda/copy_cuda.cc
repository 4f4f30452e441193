// CUDA shape and data-movement ops (float32): views alias their input as on the CPU (the
// shared shape functions decide), copies run tir's strided-copy kernel (elementwise.cu) or
// a device-to-device memcpy.
#include "kernels/cuda/cuda_kernel.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/movement/copy.h"
#include "kernels/shapes/movement/view.h"
#include "kernels/shapes/unary/dropout.h"

namespace tir::kernels::cuda {
namespace {

Status view_launch(const ViewParams& p, const KernelCall& call, CudaContext& ctx) {
  if (!p.copy) return ok_status();  // the output aliases the input
  const void* in = call.inputs[p.input].data;
  void* out = call.outputs[0].data;
  if (!p.permute)
    return launch_status(call,
                         cudaMemcpyAsync(out, in, p.nbytes, cudaMemcpyDeviceToDevice, ctx.stream));
  StridedCopy s;
  s.rank = p.rank;
  s.in_offset = p.in_offset;
  int64_t stride = 1;
  for (int d = p.rank - 1; d >= 0; --d) {
    s.sizes[d] = p.out_sizes[d];
    s.in_strides[d] = p.in_strides[d];
    s.out_strides[d] = stride;
    stride *= p.out_sizes[d];
  }
  return launch_status(call, strided_copy(in, out, p.elem_size, s, ctx.stream));
}

Status copy_launch(const CopyParams& p, const KernelCall& call, CudaContext& ctx) {
  for (const CopyRegion& r : p.regions) {
    StridedCopy s;
    s.rank = r.rank;
    s.in_offset = r.in_offset;
    s.out_offset = r.out_offset;
    for (int d = 0; d < r.rank; ++d) {
      s.sizes[d] = r.sizes[d];
      s.in_strides[d] = r.in_strides[d];
      s.out_strides[d] = r.out_strides[d];
    }
    TIR_RETURN_IF_ERROR(
        launch_status(call, strided_copy(call.inputs[r.input].data, call.outputs[r.output].data,
                                         p.elem_size, s, ctx.stream)));
  }
  return ok_status();
}

template <Result<ViewParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using ViewCuda = CudaKernel<ViewParams, Prepare, view_launch>;
template <Result<CopyParams> (*Prepare)(const KernelCall&, PrepareInfo*)>
using CopyCuda = CudaKernel<CopyParams, Prepare, copy_launch>;

// float32 only: integer and bool index/mask tensors stay with their CPU producers.
}  // namespace

void register_copy_cuda(KernelRegistry& registry) {
  registry.add({
      {"aten::view", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_view>>},
      {"aten::reshape", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_view>>},
      {"aten::_unsafe_view", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_view>>},
      {"aten::flatten.using_ints", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_flatten>>},
      {"aten::unsqueeze", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_unsqueeze>>},
      {"aten::squeeze.dim", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_squeeze_dim>>},
      {"aten::alias", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_identity>>},
      {"aten::detach", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_identity>>},
      {"aten::contiguous", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_identity>>},
      {"aten::dropout", kGpu, kF32, kOpt, &make_kernel<ViewCuda<dropout_prepare>>},
      {"aten::unflatten.int", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_unflatten>>},
      {"aten::clone", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_clone>>},
      {"aten::permute", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_permute>>},
      {"aten::t", kGpu, kF32, kOpt, &make_kernel<ViewCuda<view_prepare_t>>},
      {"aten::slice.Tensor", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_slice>>},
      {"aten::select.int", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_select>>},
      {"aten::narrow", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_narrow>>},
      {"aten::split.Tensor", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_split>>},
      {"aten::split_with_sizes", kGpu, kF32, kOpt,
       &make_kernel<CopyCuda<copy_prepare_split_with_sizes>>},
      {"aten::chunk", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_chunk>>},
      {"aten::unbind.int", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_unbind>>},
      {"aten::cat", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_cat>>},
      {"aten::stack", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_stack>>},
      {"aten::expand", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_expand>>},
      {"aten::expand_as", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_expand_as>>},
      {"aten::repeat", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_repeat>>},
      {"aten::transpose.int", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_transpose>>},
      {"aten::swapaxes", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_transpose>>},
      {"aten::squeeze", kGpu, kF32, kOpt, &make_kernel<CopyCuda<copy_prepare_squeeze>>},
  });
}
}  // namespace tir::kernels::cuda
