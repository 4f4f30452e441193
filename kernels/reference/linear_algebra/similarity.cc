// Reference cosine_similarity and pairwise_distance (kernels/shapes/linear_algebra/
// similarity.h), in double: the plan walks every output element with the reduced dim
// innermost.
#include "kernels/shapes/linear_algebra/similarity.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

template <typename T>
void run(const SimilarityParams& p, const KernelCall& call) {
  const T* a = call.inputs[p.x1].data_as<const T>();
  const T* b = call.inputs[p.x2].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  const int last = p.plan.rank - 1;
  const int64_t n = p.plan.sizes[last], sa = p.plan.a_strides[last], sb = p.plan.b_strides[last];
  BroadcastPlan outer = p.plan;  // the output positions: the reduced dim as size 1
  outer.sizes[last] = 1;
  int64_t i = 0;
  broadcast_for_each(outer, [&](int64_t, int64_t ao, int64_t bo) {
    double acc = 0, na = 0, nb = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double u = double(a[ao + k * sa]), v = double(b[bo + k * sb]);
      if (p.cosine) {
        acc += u * v;
        na += u * u;
        nb += v * v;
        continue;
      }
      const double d = std::abs(u - v + p.eps);
      if (p.p == 0) {
        acc += d != 0;
      } else if (std::isinf(p.p)) {
        acc = std::max(acc, d);
      } else {
        acc += std::pow(d, p.p);
      }
    }
    if (p.cosine) {
      acc /= std::max(std::sqrt(na), p.eps) * std::max(std::sqrt(nb), p.eps);
    } else if (p.p != 0 && !std::isinf(p.p)) {
      acc = std::pow(acc, 1.0 / p.p);
    }
    y[i++] = static_cast<T>(acc);
  });
}

void ref_similarity(const SimilarityParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) return run<double>(p, call);
  run<float>(p, call);
}

using CosineRef = FnKernel<SimilarityParams, similarity_prepare_cosine, ref_similarity>;
using PairwiseRef = FnKernel<SimilarityParams, similarity_prepare_pairwise, ref_similarity>;

}  // namespace

void register_similarity_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::cosine_similarity", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<CosineRef>},
      {"aten::cosine_similarity", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<CosineRef>},
      {"aten::pairwise_distance", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<PairwiseRef>},
      {"aten::pairwise_distance", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<PairwiseRef>},
  });
}

}  // namespace tir::kernels
