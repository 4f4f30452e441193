// Reference average pooling of float32 and float64 (kernels/shapes/pooling/avg_pool.h); sums run
// in double.
#include "kernels/shapes/pooling/avg_pool.h"

#include <algorithm>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

template <typename T>
void avg_pool_typed(const AvgPoolParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  const int D = p.dims;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, pad{};
  for (int d = 0; d < D; ++d) {
    in[3 - D + d] = p.in[d];
    out[3 - D + d] = p.out[d];
    k[3 - D + d] = p.kernel[d];
    s[3 - D + d] = p.stride[d];
    pad[3 - D + d] = p.pad[d];
  }
  const int64_t in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  for (int64_t pl = 0; pl < p.planes; ++pl) {
    const T* xp = x + pl * in_plane;
    T* yp = y + pl * out_plane;
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          std::array<int64_t, 3> lo{}, hi{};
          const std::array<int64_t, 3> o{od, oh, ow};
          int64_t pool = 1, count = 1;
          for (int d = 0; d < 3; ++d) {
            lo[d] = o[d] * s[d] - pad[d];
            hi[d] = std::min(lo[d] + k[d], in[d] + pad[d]);
            pool *= hi[d] - lo[d];
            lo[d] = std::max<int64_t>(lo[d], 0);
            hi[d] = std::min(hi[d], in[d]);
            count *= hi[d] - lo[d];
          }
          double sum = 0;
          for (int64_t a = lo[0]; a < hi[0]; ++a)
            for (int64_t b = lo[1]; b < hi[1]; ++b)
              for (int64_t c = lo[2]; c < hi[2]; ++c) sum += xp[(a * in[1] + b) * in[2] + c];
          const int64_t div = p.divisor ? p.divisor : (p.count_include_pad ? pool : count);
          yp[(od * out[1] + oh) * out[2] + ow] = static_cast<T>(sum / double(div));
        }
  }
}

void ref_avg_pool(const AvgPoolParams& p, const KernelCall& call, void*) {
  if (call.inputs[p.input].dtype == DType::kFloat64) {
    avg_pool_typed<double>(p, call);
  } else {
    avg_pool_typed<float>(p, call);
  }
}

template <int D>
using AvgPoolRef = FnKernel<AvgPoolParams, avg_pool_prepare<D>, ref_avg_pool>;

}  // namespace

void register_avg_pool_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::avg_pool1d", kCpu, kF32, kRef, &make_kernel<AvgPoolRef<1>>},
      {"aten::avg_pool2d", kCpu, kF32, kRef, &make_kernel<AvgPoolRef<2>>},
      {"aten::avg_pool3d", kCpu, kF32, kRef, &make_kernel<AvgPoolRef<3>>},
      {"aten::avg_pool1d", kCpu, DType::kFloat64, kRef, &make_kernel<AvgPoolRef<1>>},
      {"aten::avg_pool2d", kCpu, DType::kFloat64, kRef, &make_kernel<AvgPoolRef<2>>},
      {"aten::avg_pool3d", kCpu, DType::kFloat64, kRef, &make_kernel<AvgPoolRef<3>>},
  });
}
}  // namespace tir::kernels
