// Reference GEMM family: aten::linear, aten::addmm, aten::mm.
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/registry.h"

namespace tir::kernels {

void ref_gemm(const GemmParams& p, const KernelCall& call, void*) {
  const float* a = call.inputs[p.a_input].data_as<const float>();
  const float* b = call.inputs[p.b_input].data_as<const float>();
  const float* c = p.c_input >= 0 ? call.inputs[p.c_input].data_as<const float>() : nullptr;
  float* out = call.outputs[0].data_as<float>();
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double acc = 0.0;
      for (int64_t k = 0; k < p.k; ++k) {
        const double bv = p.b_transposed ? b[j * p.k + k] : b[k * p.n + j];
        acc += static_cast<double>(a[i * p.k + k]) * bv;
      }
      double v = p.alpha * acc;
      if (c != nullptr && p.beta != 0.0) {
        v += p.beta * static_cast<double>(c[i * p.c_row_stride + j * p.c_col_stride]);
      }
      out[i * p.n + j] = static_cast<float>(v);
    }
  }
  apply_activation(call.epilogue, out, p.m * p.n);
}

namespace {

using LinearRef = FnKernel<GemmParams, gemm_prepare_linear, ref_gemm, true>;
using AddmmRef = FnKernel<GemmParams, gemm_prepare_addmm, ref_gemm, true>;
using MmRef = FnKernel<GemmParams, gemm_prepare_mm, ref_gemm, true>;

constexpr auto kRef = KernelImpl::kReference;
constexpr auto kCpu = DeviceType::kCpu;
constexpr auto kF32 = DType::kFloat32;

const bool kRegistered = KernelRegistry::global().add({
    {"aten::linear", kCpu, kF32, kRef, &make_kernel<LinearRef>},
    {"aten::addmm", kCpu, kF32, kRef, &make_kernel<AddmmRef>},
    {"aten::mm", kCpu, kF32, kRef, &make_kernel<MmRef>},
});

}  // namespace
}  // namespace tir::kernels
