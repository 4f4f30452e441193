// Reference aten::histc (float32; torch's CPU kernel takes floating inputs only): `bins` equal
// bins over [min, max], counts as float32. min == max takes the data's extrema (widened by 1
// on each side when those are equal too), elements outside [min, max] and NaN are not counted,
// and an element equal to max falls in the last bin. The bin index is computed in float32 in
// torch's order, (x - min) * bins / (max - min), so elements on a bin edge land where they do
// in torch (aten/src/ATen/native/cpu/HistogramKernel.cpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

struct HistcParams {
  int input = -1;
  int64_t bins = 0, n = 0;
  float min = 0, max = 0;
};

Result<HistcParams> prepare_histc(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  HistcParams p;
  TIR_ASSIGN_OR_RETURN(p.bins, int_arg(call, 1, "bins"));
  TIR_ASSIGN_OR_RETURN(const double lo, scalar_arg(call, 2, "min"));
  TIR_ASSIGN_OR_RETURN(const double hi, scalar_arg(call, 3, "max"));
  if (p.bins <= 0)
    return op_error(call, StatusCode::kInvalidArgument, "bins must be > 0, got ", p.bins);
  if (!std::isfinite(lo) || !std::isfinite(hi))
    return op_error(call, StatusCode::kInvalidArgument, "range of [", lo, ", ", hi,
                    "] is not finite");
  if (lo > hi)
    return op_error(call, StatusCode::kInvalidArgument, "max ", hi, " must be >= min ", lo);
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.n = x->numel();
  p.min = static_cast<float>(lo);
  p.max = static_cast<float>(hi);
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape({p.bins});
  return p;
}

void ref_histc(const HistcParams& p, const KernelCall& call, void*) {
  const float* x = call.inputs[p.input].data_as<const float>();
  float* y = call.outputs[0].data_as<float>();
  std::fill(y, y + p.bins, 0.f);
  float lo = p.min, hi = p.max;
  if (lo == hi && p.n > 0) {  // the data's extrema (NaN ignored)
    lo = std::numeric_limits<float>::infinity();
    hi = -lo;
    for (int64_t i = 0; i < p.n; ++i) {
      if (std::isnan(x[i])) continue;
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    if (lo > hi) lo = hi = 0;  // every element NaN
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  for (int64_t i = 0; i < p.n; ++i) {
    const float v = x[i];
    if (!(v >= lo && v <= hi)) continue;
    int64_t pos = static_cast<int64_t>((v - lo) * static_cast<float>(p.bins) / (hi - lo));
    if (pos >= p.bins) pos = p.bins - 1;
    y[pos] += 1.f;
  }
}

using HistcRef = FnKernel<HistcParams, prepare_histc, ref_histc>;

}  // namespace

void register_histc_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::histc", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<HistcRef>},
  });
}
}  // namespace tir::kernels
