// Reference (log-)softmax, in double.
#include "kernels/reference/softmax/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

template <typename T>
void softmax_typed(const SoftmaxParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  for (int64_t o = 0; o < p.outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) {
      const int64_t base = o * p.n * p.inner + i;
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < p.n; ++k) mx = std::max<double>(mx, x[base + k * p.inner]);
      double sum = 0.0;
      for (int64_t k = 0; k < p.n; ++k) sum += std::exp(x[base + k * p.inner] - mx);
      for (int64_t k = 0; k < p.n; ++k) {
        const double d = x[base + k * p.inner] - mx;
        y[base + k * p.inner] = static_cast<T>(p.log ? d - std::log(sum) : std::exp(d) / sum);
      }
    }
  }
}

}  // namespace

void ref_softmax(const SoftmaxParams& p, const KernelCall& call, void*) {
  if (call.inputs[p.input].dtype == DType::kFloat64) {
    softmax_typed<double>(p, call);
  } else {
    softmax_typed<float>(p, call);
  }
}

namespace {

using SoftmaxRef = FnKernel<SoftmaxParams, softmax_prepare<false>, ref_softmax>;
using LogSoftmaxRef = FnKernel<SoftmaxParams, softmax_prepare<true>, ref_softmax>;

}  // namespace

void register_softmax_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::softmax.int", kCpu, kF32, kRef, &make_kernel<SoftmaxRef>},
      {"aten::_softmax", kCpu, kF32, kRef, &make_kernel<SoftmaxRef>},
      {"aten::log_softmax.int", kCpu, kF32, kRef, &make_kernel<LogSoftmaxRef>},
      {"aten::_log_softmax", kCpu, kF32, kRef, &make_kernel<LogSoftmaxRef>},
      {"aten::softmax.int", kCpu, DType::kFloat64, kRef, &make_kernel<SoftmaxRef>},
      {"aten::_softmax", kCpu, DType::kFloat64, kRef, &make_kernel<SoftmaxRef>},
      {"aten::log_softmax.int", kCpu, DType::kFloat64, kRef, &make_kernel<LogSoftmaxRef>},
      {"aten::_log_softmax", kCpu, DType::kFloat64, kRef, &make_kernel<LogSoftmaxRef>},
  });
}
}  // namespace tir::kernels
