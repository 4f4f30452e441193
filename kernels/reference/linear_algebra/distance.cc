// Reference p-norm distances: aten::_cdist_forward, aten::_pdist_forward
// (kernels/shapes/linear_algebra/distance.h). Sums run in double.
#include "kernels/shapes/linear_algebra/distance.h"

#include <cmath>
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

// ||a - b||_p over n elements, with torch's special cases p = 0, 1, 2 and inf.
float p_distance(const float* a, const float* b, int64_t n, double p) {
  double acc = 0;
  if (p == 0) {
    for (int64_t i = 0; i < n; ++i) acc += a[i] != b[i] ? 1.0 : 0.0;
    return static_cast<float>(acc);
  }
  if (std::isinf(p)) {
    for (int64_t i = 0; i < n; ++i) acc = std::max(acc, std::abs(double(a[i]) - b[i]));
    return static_cast<float>(acc);
  }
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::abs(double(a[i]) - b[i]);
    acc += p == 1 ? d : p == 2 ? d * d : std::pow(d, p);
  }
  return static_cast<float>(p == 1 ? acc : p == 2 ? std::sqrt(acc) : std::pow(acc, 1.0 / p));
}

void ref_cdist(const DistanceParams& p, const KernelCall& call, void*) {
  const float* x1 = call.inputs[p.x1].data_as<const float>();
  const float* x2 = call.inputs[p.x2].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  const int64_t m1 = p.rows1 * p.cols, m2 = p.rows2 * p.cols, mo = p.rows1 * p.rows2;
  broadcast_for_each(p.batch, [&](int64_t o, int64_t ia, int64_t ib) {
    const float* a = x1 + ia * m1;
    const float* b = x2 + ib * m2;
    float* out = y + o * mo;
    for (int64_t i = 0; i < p.rows1; ++i)
      for (int64_t j = 0; j < p.rows2; ++j)
        out[i * p.rows2 + j] = p_distance(a + i * p.cols, b + j * p.cols, p.cols, p.p);
  });
}

void ref_pdist(const DistanceParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.x1].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  for (int64_t i = 0; i < p.rows1; ++i)
    for (int64_t j = i + 1; j < p.rows1; ++j)
      *y++ = p_distance(x + i * p.cols, x + j * p.cols, p.cols, p.p);
}

using CdistRef = FnKernel<DistanceParams, distance_prepare_cdist, ref_cdist>;
using PdistRef = FnKernel<DistanceParams, distance_prepare_pdist, ref_pdist>;

}  // namespace

void register_distance_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::_cdist_forward", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<CdistRef>},
      {"aten::_pdist_forward", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<PdistRef>},
      {"aten::cdist", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<CdistRef>},
      {"aten::pdist", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<PdistRef>},
  });
}
}  // namespace tir::kernels
