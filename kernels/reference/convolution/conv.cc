// Reference 1-D and 2-D convolution: aten::conv1d, aten::conv2d, aten::convolution (direct
// loops; 1-D runs as 2-D with H = 1). A folded batch
// norm (KernelCall::batch_norm) is applied to each output channel in double, then a fused
// residual (KernelCall::residual) is added, then the epilogue: the same values the oneDNN
// kernel's folded weights and sum post-op compute.
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

void ref_conv2d(const ConvParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  const float* w = call.inputs[p.weight].data_as<const float>();
  const float* bias = p.bias >= 0 ? call.inputs[p.bias].data_as<const float>() : nullptr;
  const float* residual =
      call.residual >= 0 ? call.inputs[call.residual].data_as<const float>() : nullptr;
  float* y = call.outputs[0].data_as<float>();
  const int64_t cg = p.c / p.groups, ocg = p.oc / p.groups;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t oc = 0; oc < p.oc; ++oc) {
      const int64_t g = oc / ocg;
      const ChannelAffine norm = conv_batch_norm_channel(call, oc);
      for (int64_t oh = 0; oh < p.oh; ++oh) {
        for (int64_t ow = 0; ow < p.ow; ++ow) {
          double acc = bias ? bias[oc] : 0.0;
          for (int64_t ic = 0; ic < cg; ++ic) {
            const int64_t c = g * cg + ic;
            for (int64_t kh = 0; kh < p.kh; ++kh) {
              const int64_t ih = oh * p.stride[0] - p.pad[0] + kh * p.dil[0];
              if (ih < 0 || ih >= p.h) continue;
              for (int64_t kw = 0; kw < p.kw; ++kw) {
                const int64_t iw = ow * p.stride[1] - p.pad[1] + kw * p.dil[1];
                if (iw < 0 || iw >= p.w) continue;
                acc += static_cast<double>(x[((n * p.c + c) * p.h + ih) * p.w + iw]) *
                       w[((oc * cg + ic) * p.kh + kh) * p.kw + kw];
              }
            }
          }
          const int64_t at = ((n * p.oc + oc) * p.oh + oh) * p.ow + ow;
          y[at] = static_cast<float>(acc * norm.scale + norm.shift +
                                     (residual ? double(residual[at]) : 0.0));
        }
      }
    }
  }
  apply_activation(call.epilogue, y, p.n * p.oc * p.oh * p.ow);
}

namespace {

using Conv2dRef = FnKernel<ConvParams, conv_prepare_conv2d, ref_conv2d>;
using ConvolutionRef = FnKernel<ConvParams, conv_prepare_convolution, ref_conv2d>;

}  // namespace

void register_conv_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::conv1d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<Conv2dRef>},
      {"aten::conv2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<Conv2dRef>},
      {"aten::convolution", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<ConvolutionRef>},
  });
}
}  // namespace tir::kernels
