// CUDA layer norm, (log-)softmax and embedding, float32, on tir's own kernels (norm.cu).
#include "kernels/cuda/cuda_kernel.h"
#include "kernels/cuda/launch.h"
#include "kernels/cuda/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/indexing/embedding.h"
#include "kernels/shapes/normalization/layer_norm.h"
#include "kernels/shapes/softmax/softmax.h"

namespace tir::kernels::cuda {
namespace {

Status layer_norm_launch(const LayerNormParams& p, const KernelCall& call, CudaContext& ctx) {
  auto vec = [&](int idx) { return idx >= 0 ? call.inputs[idx].data_as<const float>() : nullptr; };
  return launch_status(call, layer_norm_f32(vec(p.input), vec(p.weight), vec(p.bias),
                                            call.outputs[0].data_as<float>(),
                                            p.stats ? call.outputs[1].data_as<float>() : nullptr,
                                            p.stats ? call.outputs[2].data_as<float>() : nullptr,
                                            p.rows, p.cols, static_cast<float>(p.eps), ctx.stream));
}

Status softmax_launch(const SoftmaxParams& p, const KernelCall& call, CudaContext& ctx) {
  return launch_status(call, softmax_f32(call.inputs[p.input].data_as<const float>(),
                                         call.outputs[0].data_as<float>(), p.outer, p.n, p.inner,
                                         p.log, ctx.stream));
}

Result<EmbeddingParams> embedding_prepare_cuda(const KernelCall& call, PrepareInfo* out_info) {
  TIR_ASSIGN_OR_RETURN(EmbeddingParams p, embedding_prepare(call, out_info));
  if (p.index_dtype != DType::kInt64 && p.index_dtype != DType::kInt32)
    return op_error(call, StatusCode::kUnsupported, "the CUDA kernel takes int64 or int32 indices");
  if (p.dtype != DType::kFloat32)
    return op_error(call, StatusCode::kUnsupported, "the CUDA kernel takes a float32 weight");
  return p;
}

Status embedding_launch(const EmbeddingParams& p, const KernelCall& call, CudaContext& ctx) {
  return launch_status(
      call, embedding_f32(call.inputs[p.weight].data_as<const float>(), call.inputs[p.indices].data,
                          p.index_dtype == DType::kInt64, call.outputs[0].data_as<float>(), p.count,
                          p.num_embeddings, p.dim, ctx.error_flag, ctx.stream));
}

using LayerNormCuda = CudaKernel<LayerNormParams, layer_norm_prepare, layer_norm_launch>;
using NativeLayerNormCuda =
    CudaKernel<LayerNormParams, layer_norm_prepare_native, layer_norm_launch>;
using SoftmaxCuda = CudaKernel<SoftmaxParams, softmax_prepare<false>, softmax_launch>;
using LogSoftmaxCuda = CudaKernel<SoftmaxParams, softmax_prepare<true>, softmax_launch>;
using EmbeddingCuda = CudaKernel<EmbeddingParams, embedding_prepare_cuda, embedding_launch>;

}  // namespace

void register_norm_cuda(KernelRegistry& registry) {
  registry.add({
      {"aten::layer_norm", kGpu, kF32, kOpt, &make_kernel<LayerNormCuda>},
      {"aten::native_layer_norm", kGpu, kF32, kOpt, &make_kernel<NativeLayerNormCuda>},
      {"aten::softmax.int", kGpu, kF32, kOpt, &make_kernel<SoftmaxCuda>},
      {"aten::_softmax", kGpu, kF32, kOpt, &make_kernel<SoftmaxCuda>},
      {"aten::log_softmax.int", kGpu, kF32, kOpt, &make_kernel<LogSoftmaxCuda>},
      {"aten::_log_softmax", kGpu, kF32, kOpt, &make_kernel<LogSoftmaxCuda>},
      {"aten::embedding", kGpu, kF32, kOpt, &make_kernel<EmbeddingCuda>},
  });
}
}  // namespace tir::kernels::cuda
