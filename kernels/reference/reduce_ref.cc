// Reference reductions: aten::mean.dim.
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/registry.h"

namespace tir::kernels {

void ref_mean(const ReduceParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  // Split input dims into kept and reduced, with their contiguous input strides.
  std::array<int64_t, kMaxRank> ks{}, kst{}, rs{}, rst{};
  int nk = 0, nr = 0;
  int64_t stride = 1;
  std::array<int64_t, kMaxRank> strides{};
  for (int d = p.rank - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= p.sizes[d];
  }
  for (int d = 0; d < p.rank; ++d) {
    if (p.reduced[d]) {
      rs[nr] = p.sizes[d];
      rst[nr++] = strides[d];
    } else {
      ks[nk] = p.sizes[d];
      kst[nk++] = strides[d];
    }
  }
  for (int64_t o = 0; o < p.out_numel; ++o) {
    int64_t base = 0, rem = o;
    for (int d = nk - 1; d >= 0; --d) {
      base += (rem % ks[d]) * kst[d];
      rem /= ks[d];
    }
    double sum = 0.0;
    for (int64_t r = 0; r < p.reduce_numel; ++r) {
      int64_t off = base, rrem = r;
      for (int d = nr - 1; d >= 0; --d) {
        off += (rrem % rs[d]) * rst[d];
        rrem /= rs[d];
      }
      sum += x[off];
    }
    y[o] = p.reduce_numel == 0 ? std::numeric_limits<float>::quiet_NaN()
                               : static_cast<float>(sum / static_cast<double>(p.reduce_numel));
  }
}

namespace {

using MeanRef = FnKernel<ReduceParams, reduce_prepare_mean_dim, ref_mean>;

const bool kRegistered = KernelRegistry::global().add({
    {"aten::mean.dim", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
     &make_kernel<MeanRef>},
});

}  // namespace
}  // namespace tir::kernels
