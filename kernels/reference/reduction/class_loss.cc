// Reference class losses (kernels/shapes/reduction/class_loss.h), in double: per position the
// log-probabilities of its classes (self itself for nll, log_softmax of the class slice for
// cross_entropy), the loss of its target, then the reduction. Target indices are data, checked
// here: one out of [0, C) that is not ignore_index is an error, never an out-of-bounds read.
#include "kernels/shapes/reduction/class_loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

using ClassKind = ClassLossParams::Kind;

template <typename T>
Status run_typed(const ClassLossParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.self].data_as<const T>();
  const T* w = p.weight >= 0 ? call.inputs[p.weight].data_as<const T>() : nullptr;
  const int64_t C = p.classes;
  std::vector<double> logp(static_cast<size_t>(C));
  double sum = 0, total_weight = 0;
  T* out = call.outputs[0].data_as<T>();
  for (int64_t n = 0; n < p.batch; ++n) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t pos = n * p.inner + i;
      const auto at = [&](int64_t c) { return (n * C + c) * p.inner + i; };
      for (int64_t c = 0; c < C; ++c) logp[c] = double(x[at(c)]);
      if (p.kind == ClassKind::kCrossEntropy && C > 0) {
        const double m = *std::max_element(logp.begin(), logp.end());
        double z = 0;
        for (double v : logp) z += std::exp(v - m);
        const double lse = m + std::log(z);
        for (double& v : logp) v -= lse;
      }
      const auto weight = [&](int64_t c) { return w ? double(w[c]) : 1.0; };
      double loss = 0;
      if (p.probabilities) {
        const T* y = call.inputs[p.target].data_as<const T>();
        for (int64_t c = 0; c < C; ++c) {
          const double target = double(y[at(c)]) * (1 - p.smoothing) + p.smoothing / double(C);
          loss -= weight(c) * target * logp[c];
        }
      } else {
        const int64_t t = call.inputs[p.target].data_as<const int64_t>()[pos];
        if (t != p.ignore_index) {
          if (t < 0 || t >= C)
            return op_error(call, StatusCode::kInvalidArgument, "target ", t,
                            " is out of bounds for ", C, " classes");
          loss = -weight(t) * logp[t];
          total_weight += weight(t);
          if (p.smoothing > 0) {
            double smooth = 0;
            for (int64_t c = 0; c < C; ++c) smooth -= weight(c) * logp[c];
            loss = (1 - p.smoothing) * loss + p.smoothing * smooth / double(C);
          }
        }
      }
      if (p.reduction == ops::LossReduction::kNone)
        out[pos] = static_cast<T>(loss);
      else
        sum += loss;
    }
  }
  if (p.reduction == ops::LossReduction::kSum) out[0] = static_cast<T>(sum);
  if (p.reduction == ops::LossReduction::kMean) {
    const double count = p.probabilities ? double(p.batch * p.inner) : total_weight;
    out[0] = static_cast<T>(count == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / count);
  }
  if (p.kind == ClassKind::kNllForward)  // torch gives 0 for reduction none
    call.outputs[1].data_as<T>()[0] =
        static_cast<T>(p.reduction == ops::LossReduction::kNone ? 0.0 : total_weight);
  return ok_status();
}

Status ref_class_loss(const ClassLossParams& p, const KernelCall& call) {
  return p.dtype == DType::kFloat64 ? run_typed<double>(p, call) : run_typed<float>(p, call);
}

template <ClassKind K>
using ClassLossRef = CheckedKernel<ClassLossParams, class_loss_prepare<K>, ref_class_loss>;

template <ClassKind K>
KernelEntry class_loss(const char* op) {
  return {op, DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
          &make_kernel<ClassLossRef<K>>};
}

}  // namespace

void register_class_loss_ref(KernelRegistry& registry) {
  registry.add({
      class_loss<ClassKind::kNll>("aten::nll_loss"),
      class_loss<ClassKind::kNll>("aten::nll_loss_nd"),
      class_loss<ClassKind::kNllForward>("aten::nll_loss_forward"),
      class_loss<ClassKind::kNllForward>("aten::nll_loss2d_forward"),
      class_loss<ClassKind::kCrossEntropy>("aten::cross_entropy_loss"),
  });
}

}  // namespace tir::kernels
