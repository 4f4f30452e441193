// Reference kernels of torch's decomposed quantization ops (the `quantized_decomposed`
// library that PT2E's convert_pt2e writes: torch/ao/quantization/fx/_decomposed.py), with
// torch's arithmetic step for step so that results are bit-identical to torch on the CPU:
//
//   quantize_per_tensor(x, scale, zp, qmin, qmax, dtype):
//       q = clamp(round_half_even(x * float(1.0 / scale)) + zp, qmin, qmax)   (float32 math)
//   dequantize_per_tensor(q, scale, zp, ...):   y = (float(q) - zp) * float(scale)
//   dequantize_per_channel(q, scales, zps, axis, ...):
//       y = float(double(q - zps[c]) * scales[c])   (int64 minus, float64 scales, as torch
//                                                     promotes int8 - int64 and * float64)
//   choose_qparams.tensor(x, qmin, qmax, eps, dtype) -> (scale [1] float64, zp [1] int64):
//       lo = min(min(x), 0), hi = max(max(x), 0)
//       scale = max((hi - lo) / float(qmax - qmin), float(eps))               (float32)
//       zp = clamp(qmin - int(round_half_even(lo / scale)), qmin, qmax)
//
// The `.tensor` overloads read scale (float64) and zero point (int64) from one-element
// tensors (choose_qparams' outputs in dynamically quantized programs) at run time.
// Quantized tensors are uint8 or int8; float tensors float32.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

Result<DType> quant_dtype_arg(const KernelCall& call, size_t idx) {
  if (idx >= call.args.size() || call.args[idx].kind != ArgKind::kDType)
    return op_error(call, StatusCode::kInvalidArgument, "argument 'dtype' must be a ScalarType");
  const DType d = static_cast<DType>(call.args[idx].i);
  if (d != DType::kUInt8 && d != DType::kInt8)
    return op_error(call, StatusCode::kUnsupported, "quantized dtype ", dtype_name(d),
                    " is not supported (uint8 and int8 are)");
  return d;
}

/// The out_dtype keyword of the dequantize ops: absent, None or float32.
Status check_out_dtype(const KernelCall& call, size_t idx) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return ok_status();
  const Arg& a = call.args[idx];
  if (a.kind == ArgKind::kDType && static_cast<DType>(a.i) == DType::kFloat32) return ok_status();
  return op_error(call, StatusCode::kUnsupported, "out_dtype other than float32 is not supported");
}

Status check_range(const KernelCall& call, int64_t qmin, int64_t qmax, DType dtype) {
  const int64_t lo = dtype == DType::kUInt8 ? 0 : -128, hi = dtype == DType::kUInt8 ? 255 : 127;
  if (qmin < lo || qmax > hi || qmin > qmax)
    return op_error(call, StatusCode::kInvalidArgument, "quant range [", qmin, ", ", qmax,
                    "] does not fit ", dtype_name(dtype));
  return ok_status();
}

/// Scale and zero point: scalar arguments, or (Tensor overloads) one-element float64 and
/// int64 tensors checked at prepare and read at run.
struct QParams {
  bool from_tensors = false;
  double scale = 1;
  int64_t zero_point = 0;
  int scale_input = -1, zero_point_input = -1;

  Status prepare(const KernelCall& call) {
    if (call.args.size() > 2 && call.args[1].kind == ArgKind::kTensor) {
      from_tensors = true;
      TIR_ASSIGN_OR_RETURN(const Tensor* s, tensor_arg(call, 1, "scale"));
      TIR_ASSIGN_OR_RETURN(const Tensor* z, tensor_arg(call, 2, "zero_point"));
      if (s->numel() != 1 || z->numel() != 1 || s->dtype != DType::kFloat64 ||
          z->dtype != DType::kInt64)
        return op_error(call, StatusCode::kUnsupported,
                        "scale and zero_point must be one-element float64 and int64 tensors");
      scale_input = static_cast<int>(tensor_input_index(call, 1));
      zero_point_input = static_cast<int>(tensor_input_index(call, 2));
      return ok_status();
    }
    TIR_ASSIGN_OR_RETURN(scale, scalar_arg(call, 1, "scale"));
    TIR_ASSIGN_OR_RETURN(zero_point, int_arg(call, 2, "zero_point"));
    return ok_status();
  }
  void load(const KernelCall& call) {
    if (!from_tensors) return;
    scale = *call.inputs[scale_input].data_as<const double>();
    zero_point = *call.inputs[zero_point_input].data_as<const int64_t>();
  }
};

class QuantizePerTensor final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
    TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
    TIR_RETURN_IF_ERROR(q_.prepare(call));
    TIR_ASSIGN_OR_RETURN(qmin_, int_arg(call, 3, "quant_min"));
    TIR_ASSIGN_OR_RETURN(qmax_, int_arg(call, 4, "quant_max"));
    TIR_ASSIGN_OR_RETURN(dtype_, quant_dtype_arg(call, 5));
    TIR_RETURN_IF_ERROR(check_range(call, qmin_, qmax_, dtype_));
    call.outputs[0].dtype = dtype_;
    call.outputs[0].set_shape(x->shape());
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override {
    q_.load(call);
    const float inv_scale = static_cast<float>(1.0 / q_.scale);
    const float zp = static_cast<float>(q_.zero_point);
    const float lo = static_cast<float>(qmin_), hi = static_cast<float>(qmax_);
    const float* x = call.inputs[0].data_as<const float>();
    const int64_t n = call.inputs[0].numel();
    auto quantize = [&](float v) {
      // torch.clamp propagates NaN; its cast to an integer type is then undefined: use qmin
      const float r = std::nearbyint(v * inv_scale) + zp;
      return std::isnan(r) ? lo : std::min(std::max(r, lo), hi);
    };
    if (dtype_ == DType::kUInt8) {
      uint8_t* y = call.outputs[0].data_as<uint8_t>();
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint8_t>(quantize(x[i]));
    } else {
      int8_t* y = call.outputs[0].data_as<int8_t>();
      for (int64_t i = 0; i < n; ++i) y[i] = static_cast<int8_t>(quantize(x[i]));
    }
    return ok_status();
  }

 private:
  QParams q_;
  int64_t qmin_ = 0, qmax_ = 0;
  DType dtype_ = DType::kUInt8;
};

class DequantizePerTensor final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
    TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
    TIR_RETURN_IF_ERROR(q_.prepare(call));
    TIR_ASSIGN_OR_RETURN(dtype_, quant_dtype_arg(call, 5));
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, dtype_, "input"));
    TIR_RETURN_IF_ERROR(check_out_dtype(call, 6));
    call.outputs[0].dtype = DType::kFloat32;
    call.outputs[0].set_shape(x->shape());
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override {
    q_.load(call);
    const float scale = static_cast<float>(q_.scale);
    const float zp = static_cast<float>(q_.zero_point);
    float* y = call.outputs[0].data_as<float>();
    const int64_t n = call.inputs[0].numel();
    if (dtype_ == DType::kUInt8) {
      const uint8_t* q = call.inputs[0].data_as<const uint8_t>();
      for (int64_t i = 0; i < n; ++i) y[i] = (static_cast<float>(q[i]) - zp) * scale;
    } else {
      const int8_t* q = call.inputs[0].data_as<const int8_t>();
      for (int64_t i = 0; i < n; ++i) y[i] = (static_cast<float>(q[i]) - zp) * scale;
    }
    return ok_status();
  }

 private:
  QParams q_;
  DType dtype_ = DType::kUInt8;
};

class DequantizePerChannel final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    TIR_RETURN_IF_ERROR(check_arity(call, 7, 1));
    TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
    TIR_ASSIGN_OR_RETURN(const Tensor* s, tensor_arg(call, 1, "scales"));
    TIR_ASSIGN_OR_RETURN(const Tensor* z, optional_tensor_arg(call, 2, "zero_points"));
    TIR_ASSIGN_OR_RETURN(const int64_t axis, int_arg(call, 3, "axis"));
    TIR_ASSIGN_OR_RETURN(dtype_, quant_dtype_arg(call, 6));
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, dtype_, "input"));
    TIR_RETURN_IF_ERROR(check_out_dtype(call, 7));
    TIR_ASSIGN_OR_RETURN(const int a, normalize_dim(call, axis, x->rank, "axis"));
    if (x->rank == 0) return op_error(call, StatusCode::kInvalidArgument, "input is a scalar");
    channels_ = x->sizes[a];
    if (s->rank != 1 || s->sizes[0] != channels_ ||
        (s->dtype != DType::kFloat64 && s->dtype != DType::kFloat32))
      return op_error(call, StatusCode::kInvalidArgument, "scales must be float32 or float64 [",
                      channels_, "]");
    if (z && (z->rank != 1 || z->sizes[0] != channels_ || z->dtype != DType::kInt64))
      return op_error(call, StatusCode::kInvalidArgument, "zero_points must be int64 [", channels_,
                      "]");
    inner_ = 1;
    for (int d = a + 1; d < x->rank; ++d) inner_ *= x->sizes[d];
    scales_input_ = static_cast<int>(tensor_input_index(call, 1));
    zero_points_input_ = z ? static_cast<int>(tensor_input_index(call, 2)) : -1;
    call.outputs[0].dtype = DType::kFloat32;
    call.outputs[0].set_shape(x->shape());
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override {
    const Tensor& st = call.inputs[scales_input_];
    const int64_t* zps = zero_points_input_ >= 0
                             ? call.inputs[zero_points_input_].data_as<const int64_t>()
                             : nullptr;
    float* y = call.outputs[0].data_as<float>();
    const int64_t n = call.inputs[0].numel();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = (i / inner_) % channels_;
      const int64_t q = dtype_ == DType::kUInt8 ? call.inputs[0].data_as<const uint8_t>()[i]
                                                : call.inputs[0].data_as<const int8_t>()[i];
      const int64_t centered = q - (zps ? zps[c] : 0);
      // float64 scales: torch multiplies in float64, then rounds to float32
      y[i] = st.dtype == DType::kFloat64
                 ? static_cast<float>(static_cast<double>(centered) * st.data_as<const double>()[c])
                 : static_cast<float>(centered) * st.data_as<const float>()[c];
    }
    return ok_status();
  }

 private:
  DType dtype_ = DType::kInt8;
  int64_t channels_ = 1, inner_ = 1;
  int scales_input_ = -1, zero_points_input_ = -1;
};

class ChooseQParams final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    TIR_RETURN_IF_ERROR(check_arity(call, 5, 2));
    TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
    if (x->numel() == 0)
      return op_error(call, StatusCode::kUnsupported, "input is empty (torch answers 1 and 0)");
    TIR_ASSIGN_OR_RETURN(qmin_, int_arg(call, 1, "quant_min"));
    TIR_ASSIGN_OR_RETURN(qmax_, int_arg(call, 2, "quant_max"));
    TIR_ASSIGN_OR_RETURN(const double eps, scalar_arg(call, 3, "eps"));
    eps_ = static_cast<float>(eps);
    TIR_ASSIGN_OR_RETURN(const DType dtype, quant_dtype_arg(call, 4));
    TIR_RETURN_IF_ERROR(check_range(call, qmin_, qmax_, dtype));
    call.outputs[0].dtype = DType::kFloat64;
    call.outputs[0].set_shape({1});
    call.outputs[1].dtype = DType::kInt64;
    call.outputs[1].set_shape({1});
    return ok_status();
  }
  Status run(const KernelCall& call, void*) override {
    const float* x = call.inputs[0].data_as<const float>();
    const int64_t n = call.inputs[0].numel();
    float lo = x[0], hi = x[0];
    bool nan = false;
    for (int64_t i = 0; i < n; ++i) {
      nan = nan || std::isnan(x[i]);
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    lo = std::min(lo, 0.0f);
    hi = std::max(hi, 0.0f);
    float scale = (hi - lo) / static_cast<float>(qmax_ - qmin_);
    scale = nan ? NAN : std::max(scale, eps_);
    const float r = std::nearbyint(lo / scale);
    int64_t zp = std::isfinite(r) ? qmin_ - static_cast<int64_t>(r) : qmin_;
    zp = std::min(std::max(zp, qmin_), qmax_);
    *call.outputs[0].data_as<double>() = scale;
    *call.outputs[1].data_as<int64_t>() = zp;
    return ok_status();
  }

 private:
  int64_t qmin_ = 0, qmax_ = 0;
  float eps_ = 0;
};

}  // namespace

void register_quantize_ref(KernelRegistry& registry) {
  registry.add({
      {"quantized_decomposed::quantize_per_tensor", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kReference, &make_kernel<QuantizePerTensor>},
      {"quantized_decomposed::quantize_per_tensor.tensor", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kReference, &make_kernel<QuantizePerTensor>},
      {"quantized_decomposed::dequantize_per_tensor", DeviceType::kCpu, DType::kUndefined,
       KernelImpl::kReference, &make_kernel<DequantizePerTensor>},
      {"quantized_decomposed::dequantize_per_tensor.tensor", DeviceType::kCpu, DType::kUndefined,
       KernelImpl::kReference, &make_kernel<DequantizePerTensor>},
      {"quantized_decomposed::dequantize_per_channel", DeviceType::kCpu, DType::kUndefined,
       KernelImpl::kReference, &make_kernel<DequantizePerChannel>},
      {"quantized_decomposed::choose_qparams.tensor", DeviceType::kCpu, DType::kFloat32,
       KernelImpl::kReference, &make_kernel<ChooseQParams>},
  });
}
}  // namespace tir::kernels
