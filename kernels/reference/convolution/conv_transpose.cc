// Reference transposed convolution, 1-D to 3-D (aten::conv_transpose1d, conv_transpose2d.input,
// conv_transpose3d.input): each output element gathers the input elements whose stride-spaced
// kernel windows cover it, accumulated in double.
#include "kernels/shapes/convolution/conv_transpose.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

/// The input index along one dim that kernel tap `k` maps onto output `o`, or -1.
int64_t source(const ConvTransposeParams& p, int d, int64_t o, int64_t k) {
  const int64_t t = o + p.pad[d] - k * p.dil[d];
  if (t < 0 || t % p.stride[d] != 0) return -1;
  const int64_t i = t / p.stride[d];
  return i < p.in[d] ? i : -1;
}

void ref_conv_transpose(const ConvTransposeParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  const float* w = call.inputs[p.weight].data_as<const float>();
  const float* bias = p.bias >= 0 ? call.inputs[p.bias].data_as<const float>() : nullptr;
  float* y = call.outputs[0].data_as<float>();
  const int64_t cg = p.c / p.groups, ocg = p.oc / p.groups;
  const int64_t in_plane = p.in[0] * p.in[1] * p.in[2], ksize = p.k[0] * p.k[1] * p.k[2];
  const int64_t plane = p.out[0] * p.out[1] * p.out[2];
  for (int64_t n = 0; n < p.n; ++n)
    for (int64_t oc = 0; oc < p.oc; ++oc) {
      const int64_t g = oc / ocg;
      for (int64_t o = 0; o < plane; ++o) {
        const int64_t od = o / (p.out[1] * p.out[2]), oh = o / p.out[2] % p.out[1],
                      ow = o % p.out[2];
        double acc = bias ? bias[oc] : 0.0;
        for (int64_t kd = 0; kd < p.k[0]; ++kd) {
          const int64_t id = source(p, 0, od, kd);
          if (id < 0) continue;
          for (int64_t kh = 0; kh < p.k[1]; ++kh) {
            const int64_t ih = source(p, 1, oh, kh);
            if (ih < 0) continue;
            for (int64_t kw = 0; kw < p.k[2]; ++kw) {
              const int64_t iw = source(p, 2, ow, kw);
              if (iw < 0) continue;
              const int64_t at = (id * p.in[1] + ih) * p.in[2] + iw;
              const int64_t tap = (kd * p.k[1] + kh) * p.k[2] + kw;
              for (int64_t ic = 0; ic < cg; ++ic) {
                const int64_t c = g * cg + ic;
                acc += double(x[(n * p.c + c) * in_plane + at]) *
                       w[(c * ocg + (oc - g * ocg)) * ksize + tap];
              }
            }
          }
        }
        y[(n * p.oc + oc) * plane + o] = static_cast<float>(acc);
      }
    }
}

using ConvTransposeRef = FnKernel<ConvTransposeParams, conv_prepare_transpose, ref_conv_transpose>;

}  // namespace

void register_conv_transpose_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::conv_transpose1d", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<ConvTransposeRef>},
      {"aten::conv_transpose2d.input", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<ConvTransposeRef>},
      {"aten::conv_transpose3d.input", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<ConvTransposeRef>},
  });
}

}  // namespace tir::kernels
