// Reference 1-D, 2-D and 3-D convolution: aten::conv1d, conv2d, conv3d, convolution (direct
// loops; 1-D runs as 2-D with H = 1, 2-D as 3-D with D = 1). A folded batch
// norm (KernelCall::batch_norm) is applied to each output channel in double, then a fused
// residual (KernelCall::residual) is added, then the epilogue: the same values the oneDNN
// kernel's folded weights and sum post-op compute.
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

namespace {

// One output element: `acc` (the bias) plus the sum over the input channels of oc's group and
// the kernel window.
template <typename T>
double conv_at(const ConvParams& p, const T* x, const T* w, int64_t n, int64_t oc, int64_t od,
               int64_t oh, int64_t ow, double acc) {
  const int64_t cg = p.c / p.groups, g = oc / (p.oc / p.groups);
  for (int64_t ic = 0; ic < cg; ++ic) {
    const int64_t c = g * cg + ic;
    for (int64_t kd = 0; kd < p.kd; ++kd) {
      const int64_t id = od * p.stride_d - p.pad_d + kd * p.dil_d;
      if (id < 0 || id >= p.d) continue;
      for (int64_t kh = 0; kh < p.kh; ++kh) {
        const int64_t ih = oh * p.stride[0] - p.pad[0] + kh * p.dil[0];
        if (ih < 0 || ih >= p.h) continue;
        const T* xrow = x + (((n * p.c + c) * p.d + id) * p.h + ih) * p.w;
        const T* wrow = w + (((oc * cg + ic) * p.kd + kd) * p.kh + kh) * p.kw;
        for (int64_t kw = 0; kw < p.kw; ++kw) {
          const int64_t iw = ow * p.stride[1] - p.pad[1] + kw * p.dil[1];
          if (iw < 0 || iw >= p.w) continue;
          acc += static_cast<double>(xrow[iw]) * wrow[kw];
        }
      }
    }
  }
  return acc;
}

// A float64 convolution: in double throughout (no fused batch norm, residual or epilogue: the
// fusion pass fuses float32 nodes only).
void conv_float64(const ConvParams& p, const KernelCall& call) {
  const double* x = call.inputs[p.input].data_as<const double>();
  const double* w = call.inputs[p.weight].data_as<const double>();
  const double* bias = p.bias >= 0 ? call.inputs[p.bias].data_as<const double>() : nullptr;
  double* y = call.outputs[0].data_as<double>();
  const int64_t plane = p.od * p.oh * p.ow;
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oc = 0; oc < p.oc; ++oc)
      for (int64_t o = 0; o < plane; ++o) {
        const int64_t od = o / (p.oh * p.ow), oh = o / p.ow % p.oh, ow = o % p.ow;
        y[(n * p.oc + oc) * plane + o] = conv_at(p, x, w, n, oc, od, oh, ow, bias ? bias[oc] : 0.0);
      }
}

}  // namespace

void ref_conv2d(const ConvParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) return conv_float64(p, call);
  const float* x = call.inputs[p.input].data_as<const float>();
  const float* w = call.inputs[p.weight].data_as<const float>();
  const float* bias = p.bias >= 0 ? call.inputs[p.bias].data_as<const float>() : nullptr;
  const float* residual =
      call.residual >= 0 ? call.inputs[call.residual].data_as<const float>() : nullptr;
  float* y = call.outputs[0].data_as<float>();
  const int64_t plane = p.od * p.oh * p.ow;
  for (int64_t n = 0; n < p.n; ++n) {
    for (int64_t oc = 0; oc < p.oc; ++oc) {
      const ChannelAffine norm = conv_batch_norm_channel(call, oc);
      for (int64_t o = 0; o < plane; ++o) {
        const int64_t od = o / (p.oh * p.ow), oh = o / p.ow % p.oh, ow = o % p.ow;
        const double acc = conv_at(p, x, w, n, oc, od, oh, ow, bias ? bias[oc] : 0.0);
        const int64_t at = (n * p.oc + oc) * plane + o;
        y[at] = static_cast<float>(acc * norm.scale + norm.shift +
                                   (residual ? double(residual[at]) : 0.0));
      }
    }
  }
  apply_activation(call.epilogue, y, p.n * p.oc * plane);
}

namespace {

using Conv2dRef = FnKernel<ConvParams, conv_prepare_conv2d, ref_conv2d>;
using Conv3dRef = FnKernel<ConvParams, conv_prepare_conv3d, ref_conv2d>;
using ConvolutionRef = FnKernel<ConvParams, conv_prepare_convolution, ref_conv2d>;

}  // namespace

void register_conv_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::conv1d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<Conv2dRef>},
      {"aten::conv2d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<Conv2dRef>},
      {"aten::conv3d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<Conv3dRef>},
      {"aten::convolution", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<ConvolutionRef>},
      {"aten::conv1d", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<Conv2dRef>},
      {"aten::conv2d", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<Conv2dRef>},
      {"aten::conv3d", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<Conv3dRef>},
      {"aten::convolution", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<ConvolutionRef>},
  });
}
}  // namespace tir::kernels
