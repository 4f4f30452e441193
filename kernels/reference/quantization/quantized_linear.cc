#include "kernels/reference/quantization/quantized_linear.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {

void ref_quantized_linear(const QuantizedLinearParams& p, const KernelCall& call, float* row) {
  const Tensor& x = call.inputs[p.input];
  const Tensor& s = call.inputs[p.scales];
  const int8_t* w = call.inputs[p.weight].data_as<const int8_t>();
  const int64_t* zw =
      p.zero_points >= 0 ? call.inputs[p.zero_points].data_as<const int64_t>() : nullptr;
  const float* bias = p.bias >= 0 ? call.inputs[p.bias].data_as<const float>() : nullptr;
  float* y = call.outputs[0].data_as<float>();
  const float sx = float(p.x_scale), zx = float(p.x_zero_point);
  for (int64_t m = 0; m < p.m; ++m) {
    for (int64_t k = 0; k < p.k; ++k) {
      const int64_t i = m * p.k + k;
      const float q = p.signed_input ? float(x.data_as<const int8_t>()[i])
                                     : float(x.data_as<const uint8_t>()[i]);
      row[k] = (q - zx) * sx;
    }
    for (int64_t n = 0; n < p.n; ++n) {
      const double sw = s.dtype == DType::kFloat64 ? s.data_as<const double>()[n]
                                                   : double(s.data_as<const float>()[n]);
      const int64_t z = zw ? zw[n] : 0;
      float acc = 0;
      for (int64_t k = 0; k < p.k; ++k)
        acc += row[k] * float(double(int64_t(w[n * p.k + k]) - z) * sw);
      y[m * p.n + n] = acc + (bias ? bias[n] : 0.0f);
    }
  }
}

namespace {

class QuantizedLinearRef final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo* out_info) override {
    TIR_ASSIGN_OR_RETURN(p_, quantized_linear_prepare(call));
    out_info->scratch_bytes = size_t(p_.k) * sizeof(float);
    return ok_status();
  }
  Status run(const KernelCall& call, void* scratch) override {
    ref_quantized_linear(p_, call, static_cast<float*>(scratch));
    return ok_status();
  }

 private:
  QuantizedLinearParams p_;
};

}  // namespace

void register_quantized_linear_ref(KernelRegistry& registry) {
  registry.add({
      {"tir::quantized_linear", DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
       &make_kernel<QuantizedLinearRef>},
  });
}
}  // namespace tir::kernels
