// Reference einsum (kernels/shapes/linear_algebra/einsum.h): for each output element, the sum
// over the summed labels of the operands' product, in double.
#include "kernels/reference/linear_algebra/einsum.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

/// Advances the multi-index `at` over `labels` (sizes `size`), moving `offset` (per tensor)
/// by the tensors' `strides`; false when it wrapped around.
bool step(const EinsumParams& p, const std::vector<std::vector<int64_t>>& strides,
          const std::vector<int>& labels, std::vector<int64_t>& at, std::vector<int64_t>& offset) {
  for (size_t d = labels.size(); d-- > 0;) {
    const int l = labels[d];
    for (size_t k = 0; k < offset.size(); ++k) offset[k] += strides[k][size_t(l)];
    if (++at[d] < p.size[size_t(l)]) return true;
    for (size_t k = 0; k < offset.size(); ++k) offset[k] -= at[d] * strides[k][size_t(l)];
    at[d] = 0;
  }
  return false;
}

template <typename T>
void run(const EinsumParams& p, const KernelCall& call) {
  const size_t nops = p.inputs.size();
  std::vector<const T*> x(nops);
  for (size_t k = 0; k < nops; ++k) x[k] = call.inputs[size_t(p.inputs[k])].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  const int64_t numel = call.outputs[0].numel();
  if (numel == 0) return;
  bool empty_sum = false;
  for (int l : p.sum_labels) empty_sum = empty_sum || p.size[size_t(l)] == 0;
  // The added tensor walks the output labels after the operands.
  std::vector<std::vector<int64_t>> strides = p.stride;
  const T* added = nullptr;
  if (p.added >= 0 && p.beta != 0) {
    added = call.inputs[size_t(p.added)].data_as<const T>();
    strides.push_back(p.added_stride);
  }
  std::vector<int64_t> out_at(p.out_labels.size(), 0), out_off(strides.size(), 0);
  std::vector<int64_t> sum_at(p.sum_labels.size(), 0), off(strides.size(), 0);
  for (int64_t i = 0; i < numel; ++i) {
    double acc = 0;
    if (!empty_sum) {
      off = out_off;
      do {
        double prod = 1;
        for (size_t k = 0; k < nops; ++k) prod *= double(x[k][off[k]]);
        acc += prod;
      } while (step(p, strides, p.sum_labels, sum_at, off));
    }
    if (p.alpha != 1) acc *= p.alpha;
    if (added) acc += p.beta * double(added[out_off[nops]]);
    y[i] = static_cast<T>(acc);
    step(p, strides, p.out_labels, out_at, out_off);
  }
}

}  // namespace

void ref_einsum(const EinsumParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) return run<double>(p, call);
  run<float>(p, call);
}

namespace {

using EinsumRef = FnKernel<EinsumParams, einsum_prepare, ref_einsum>;

}  // namespace

void register_einsum_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::einsum", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<EinsumRef>},
      {"aten::einsum", DeviceType::kCpu, DType::kFloat64, KernelImpl::kReference,
       &make_kernel<EinsumRef>},
  });
}

}  // namespace tir::kernels
