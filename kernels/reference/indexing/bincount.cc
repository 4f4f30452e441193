// Reference bincount (kernels/shapes/indexing/bincount.h): counts, or weights summed in
// double, per bin.
#include "kernels/shapes/indexing/bincount.h"

#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

Status run_bincount(const BincountParams& p, const KernelCall& call) {
  const Tensor& self = call.inputs[p.self];
  auto value = [&](int64_t i) {
    return p.self_dtype == DType::kInt32 ? int64_t{self.data_as<const int32_t>()[i]}
                                         : self.data_as<const int64_t>()[i];
  };
  std::vector<double> sums(size_t(p.bins), 0.0);
  for (int64_t i = 0; i < p.n; ++i) {
    const int64_t v = value(i);
    if (v < 0 || v >= p.bins)
      return op_error(call, StatusCode::kInvalidArgument, "value ", v,
                      " is outside the bins the run was planned for (", p.bins, ")");
    double w = 1;
    if (p.weights >= 0) {
      const Tensor& wt = call.inputs[p.weights];
      w = wt.dtype == DType::kFloat64 ? wt.data_as<const double>()[i]
                                      : double(wt.data_as<const float>()[i]);
    }
    sums[size_t(v)] += w;
  }
  Tensor& out = call.outputs[0];
  for (int64_t b = 0; b < p.bins; ++b) {
    if (p.out == DType::kInt64) out.data_as<int64_t>()[b] = int64_t(sums[size_t(b)]);
    if (p.out == DType::kFloat32) out.data_as<float>()[b] = float(sums[size_t(b)]);
    if (p.out == DType::kFloat64) out.data_as<double>()[b] = sums[size_t(b)];
  }
  return ok_status();
}

using BincountRef = CheckedKernel<BincountParams, bincount_prepare, run_bincount>;

}  // namespace

void register_bincount_ref(KernelRegistry& registry) {
  registry.add({{"aten::bincount", DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
                 &make_kernel<BincountRef>}});
}

}  // namespace tir::kernels
