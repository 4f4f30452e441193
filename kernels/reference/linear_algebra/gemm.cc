// Reference GEMM family: aten::linear, aten::addmm, aten::mm.
#include <cstdint>

#include "core/float16.h"
#include "kernels/epilogue.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {

namespace {

// torch's integer mm/addmm: exact products, wrapping like int64 arithmetic; alpha and beta
// are integers. Only relu makes sense as a fused epilogue on integers.
void ref_gemm_int64(const GemmParams& p, const KernelCall& call) {
  const int64_t* a = call.inputs[p.a_input].data_as<const int64_t>();
  const int64_t* b = call.inputs[p.b_input].data_as<const int64_t>();
  const int64_t* c = p.c_input >= 0 ? call.inputs[p.c_input].data_as<const int64_t>() : nullptr;
  int64_t* out = call.outputs[0].data_as<int64_t>();
  const uint64_t alpha = static_cast<uint64_t>(static_cast<int64_t>(p.alpha));
  const uint64_t beta = static_cast<uint64_t>(static_cast<int64_t>(p.beta));
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      uint64_t acc = 0;
      for (int64_t k = 0; k < p.k; ++k)
        acc += static_cast<uint64_t>(a[i * p.k + k]) * static_cast<uint64_t>(b[k * p.n + j]);
      uint64_t v = alpha * acc;
      if (c != nullptr && beta != 0)
        v += beta * static_cast<uint64_t>(c[i * p.c_row_stride + j * p.c_col_stride]);
      int64_t r = static_cast<int64_t>(v);
      if (call.epilogue == ops::UnaryKind::kRelu && r < 0) r = 0;
      out[i * p.n + j] = r;
    }
  }
}

// torch's double mm/addmm/linear: float64 operands, products summed in double (no epilogue:
// the fusion pass fuses float32 nodes only).
void ref_gemm_float64(const GemmParams& p, const KernelCall& call) {
  const double* a = call.inputs[p.a_input].data_as<const double>();
  const double* b = call.inputs[p.b_input].data_as<const double>();
  const double* c = p.c_input >= 0 ? call.inputs[p.c_input].data_as<const double>() : nullptr;
  double* out = call.outputs[0].data_as<double>();
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double acc = 0.0;
      for (int64_t k = 0; k < p.k; ++k)
        acc += a[i * p.k + k] * b[p.b_transposed ? j * p.k + k : k * p.n + j];
      double v = p.alpha * acc;
      if (c != nullptr && p.beta != 0.0) v += p.beta * c[i * p.c_row_stride + j * p.c_col_stride];
      out[i * p.n + j] = v;
    }
  }
}

/// B[r, c] of a float32, float16 or bfloat16 B.
double b_at(const GemmParams& p, const void* b, int64_t r, int64_t c) {
  const int64_t i = p.b_transposed ? c * p.k + r : r * p.n + c;
  switch (p.b_dtype) {
    case DType::kFloat16:
      return fp16_to_float(static_cast<const uint16_t*>(b)[i]);
    case DType::kBFloat16:
      return bf16_to_float(static_cast<const uint16_t*>(b)[i]);
    default:
      return static_cast<const float*>(b)[i];
  }
}

}  // namespace

void ref_gemm(const GemmParams& p, const KernelCall& call, void*) {
  if (call.outputs[0].dtype == DType::kInt64) return ref_gemm_int64(p, call);
  if (call.outputs[0].dtype == DType::kFloat64) return ref_gemm_float64(p, call);
  const float* a = call.inputs[p.a_input].data_as<const float>();
  const void* b = call.inputs[p.b_input].data;  // float32, or a half weight (GemmParams)
  const float* c = p.c_input >= 0 ? call.inputs[p.c_input].data_as<const float>() : nullptr;
  float* out = call.outputs[0].data_as<float>();
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      double acc = 0.0;
      for (int64_t k = 0; k < p.k; ++k)
        acc += static_cast<double>(a[i * p.k + k]) * b_at(p, b, k, j);
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

using LinearRef = FnKernel<GemmParams, gemm_prepare_linear, ref_gemm>;
using AddmmRef = FnKernel<GemmParams, gemm_prepare_addmm, ref_gemm>;
using MmRef = FnKernel<GemmParams, gemm_prepare_mm, ref_gemm>;

}  // namespace

void register_gemm_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::linear", kCpu, kF32, kRef, &make_kernel<LinearRef>},
      {"aten::addmm", kCpu, kF32, kRef, &make_kernel<AddmmRef>},
      {"aten::mm", kCpu, kF32, kRef, &make_kernel<MmRef>},
      {"aten::addmm", kCpu, DType::kInt64, kRef, &make_kernel<AddmmRef>},
      {"aten::mm", kCpu, DType::kInt64, kRef, &make_kernel<MmRef>},
      {"aten::linear", kCpu, DType::kFloat64, kRef, &make_kernel<LinearRef>},
      {"aten::addmm", kCpu, DType::kFloat64, kRef, &make_kernel<AddmmRef>},
      {"aten::mm", kCpu, DType::kFloat64, kRef, &make_kernel<MmRef>},
  });
}
}  // namespace tir::kernels
