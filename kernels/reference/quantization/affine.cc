// Reference kernels of torchao's affine quantization ops (torchao/quantization/quant_primitives.py,
// the `torchao` library that quantize_ with Int8DynamicActivationInt8WeightConfig,
// Int8WeightOnlyConfig and their kin leaves in an exported program), with torch's arithmetic
// step for step so that results are bit-identical to torch on the CPU:
//
//   choose_qparams_affine(x, mapping_type, block_size, target_dtype, quant_min, quant_max, eps,
//                         scale_dtype, zero_point_dtype, keepdim) -> (scale, zero_point)
//       per block: lo = min(amin(x), 0), hi = max(amax(x), 0)                     (float32)
//       SYMMETRIC:              scale = max(-lo, hi) / ((qmax - qmin) / 2), zp = (qmax+qmin+1)/2
//       SYMMETRIC_NO_CLIPPING_ERR: scale = lo/qmin > hi/qmax ? lo/qmin : hi/qmax, zp as above
//       ASYMMETRIC:             scale = (hi - lo) / (qmax - qmin)
//       then scale = max(scale, eps) (eps None: float32's smallest normal); ASYMMETRIC:
//       zp = clamp(qmin - round_half_even(lo / scale), qmin, qmax)
//   quantize_affine(x, block_size, scale, zero_point, output_dtype, quant_min, quant_max):
//       q = clamp(round_half_even(x * (1 / scale)) + zp, qmin, qmax)             (float32)
//   dequantize_affine(q, block_size, scale, zero_point, input_dtype, quant_min, quant_max,
//                     output_dtype):  y = (float(q) - float(zp)) * scale         (float32)
//
// block_size gives, per dim, how many consecutive elements share one scale: the dim's size
// (the whole dim), 1 (each index its own) or a divisor of it (groups). A block's scale sits at
// its block coordinates in row-major order, whatever shape the scale tensor has (torch views it
// so); choose_qparams_affine writes that shape with keepdim (size / block per dim) or, without,
// with the whole-dim blocks dropped. Inputs are float32, quantized data int8/uint8/int16/int32,
// scales float32, zero points any integer dtype or float32. torchao's ops are not ATen ops: the
// program holds only the arguments it gave, so the kernels read them by name with torchao's
// defaults (kernel.h find_arg).
#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"

namespace tir::kernels {
namespace {

// ------------------------------------------------------------------------- arguments by name

const Arg* named(const KernelCall& call, std::string_view name) {
  const Arg* a = find_arg(call.args, name);
  return a && !a->is_none() ? a : nullptr;
}

Result<const Tensor*> named_tensor(const KernelCall& call, std::string_view name, bool required,
                                   int* out_index) {
  const Arg* a = named(call, name);
  if (!a) {
    if (required)
      return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' is missing");
    *out_index = -1;
    return static_cast<const Tensor*>(nullptr);
  }
  if (a->kind != ArgKind::kTensor || a->i < 0 || size_t(a->i) >= call.inputs.size())
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' must be a tensor");
  *out_index = static_cast<int>(a->i);
  return &call.inputs[size_t(a->i)];
}

Result<DType> named_dtype(const KernelCall& call, std::string_view name) {
  const Arg* a = named(call, name);
  if (!a || a->kind != ArgKind::kDType)
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name,
                    "' must be a ScalarType");
  return static_cast<DType>(a->i);
}

/// An optional int argument (quant_min, quant_max), `fallback` when absent or None. torchao
/// types them int | float | bool: a float must hold an integer.
Result<int64_t> named_int_or(const KernelCall& call, std::string_view name, int64_t fallback) {
  const Arg* a = named(call, name);
  if (!a) return fallback;
  if (a->kind == ArgKind::kInt || a->kind == ArgKind::kBool) return a->i;
  if (a->kind == ArgKind::kFloat && a->f == std::floor(a->f) && std::abs(a->f) < 1e18)
    return static_cast<int64_t>(a->f);
  return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' must be an integer");
}

/// torch's range of an integer quantized dtype (torchao _DTYPE_TO_QVALUE_BOUNDS).
Result<std::array<int64_t, 2>> dtype_bounds(const KernelCall& call, DType d) {
  switch (d) {
    case DType::kUInt8:
      return std::array<int64_t, 2>{0, 255};
    case DType::kInt8:
      return std::array<int64_t, 2>{-128, 127};
    case DType::kInt16:
      return std::array<int64_t, 2>{-32768, 32767};
    case DType::kInt32:
      return std::array<int64_t, 2>{INT32_MIN, INT32_MAX};
    default:
      return op_error(call, StatusCode::kUnsupported, "quantized dtype ", dtype_name(d),
                      " is not supported (uint8, int8, int16 and int32 are)");
  }
}

/// quant_min / quant_max, defaulting to the dtype's range and checked against it, as torchao's
/// _get_and_check_qmin_qmax.
Result<std::array<int64_t, 2>> quant_range(const KernelCall& call, DType d) {
  TIR_ASSIGN_OR_RETURN(const auto bounds, dtype_bounds(call, d));
  TIR_ASSIGN_OR_RETURN(const int64_t qmin, named_int_or(call, "quant_min", bounds[0]));
  TIR_ASSIGN_OR_RETURN(const int64_t qmax, named_int_or(call, "quant_max", bounds[1]));
  if (qmin < bounds[0] || qmax > bounds[1] || qmin > qmax)
    return op_error(call, StatusCode::kInvalidArgument, "quant range [", qmin, ", ", qmax,
                    "] does not fit ", dtype_name(d));
  return std::array<int64_t, 2>{qmin, qmax};
}

// ------------------------------------------------------------------------- blocks

/// The blocks of `block_size` over a contiguous tensor: per dim, the block extent and the
/// number of blocks; blocks are numbered row-major over their coordinates.
struct Blocks {
  int rank = 0;
  std::array<int64_t, kMaxRank> sizes{}, block{}, count{};
  int64_t num_blocks = 1;

  static Result<Blocks> make(const KernelCall& call, const Tensor& x) {
    const Arg* a = named(call, "block_size");
    if (!a || (a->kind != ArgKind::kInts && a->kind != ArgKind::kInt))
      return op_error(call, StatusCode::kInvalidArgument, "argument 'block_size' must be int[]");
    const std::span<const int64_t> bs =
        a->kind == ArgKind::kInts ? a->ints : std::span<const int64_t>(&a->i, 1);
    if (static_cast<int>(bs.size()) != x.rank)
      return op_error(call, StatusCode::kInvalidArgument, "block_size has ", bs.size(),
                      " entries for an input of rank ", x.rank);
    Blocks b;
    b.rank = x.rank;
    for (int d = 0; d < x.rank; ++d) {
      const int64_t n = x.sizes[d], k = bs[size_t(d)];
      // torchao's _get_reduction_params: the whole dim, each index, or groups dividing it
      if (k < 1 || (k != n && n % k != 0))
        return op_error(call, StatusCode::kInvalidArgument, "block_size[", d, "] = ", k,
                        " does not divide input size ", n);
      b.sizes[size_t(d)] = n;
      b.block[size_t(d)] = k;
      b.count[size_t(d)] = k == n ? 1 : n / k;
      b.num_blocks *= b.count[size_t(d)];
    }
    return b;
  }

  /// f(offset, length, block) for each run of consecutive elements (row-major) in one block.
  template <typename F>
  void for_each_run(F&& f) const {
    if (rank == 0) {
      f(int64_t{0}, int64_t{1}, int64_t{0});
      return;
    }
    const int last = rank - 1;
    const int64_t n_last = sizes[size_t(last)], k_last = block[size_t(last)];
    int64_t outer = 1;
    for (int d = 0; d < last; ++d) outer *= sizes[size_t(d)];
    std::array<int64_t, kMaxRank> idx{};
    for (int64_t o = 0; o < outer; ++o) {
      int64_t base = 0;  // block number of (idx[0..last-1], 0)
      for (int d = 0; d < last; ++d)
        base = base * count[size_t(d)] + idx[size_t(d)] / block[size_t(d)];
      base *= count[size_t(last)];
      for (int64_t k0 = 0; k0 < n_last; k0 += k_last)
        f(o * n_last + k0, std::min(k_last, n_last - k0), base + k0 / k_last);
      for (int d = last - 1; d >= 0; --d) {  // odometer over the outer dims
        if (++idx[size_t(d)] < sizes[size_t(d)]) break;
        idx[size_t(d)] = 0;
      }
    }
  }
};

/// Element `i` of an integer or float32 tensor as float (zero points: torch converts them to
/// the float dtype it computes in).
float element_as_float(const Tensor& t, int64_t i) {
  switch (t.dtype) {
    case DType::kUInt8:
      return float(t.data_as<const uint8_t>()[i]);
    case DType::kInt8:
      return float(t.data_as<const int8_t>()[i]);
    case DType::kInt16:
      return float(t.data_as<const int16_t>()[i]);
    case DType::kInt32:
      return float(t.data_as<const int32_t>()[i]);
    case DType::kInt64:
      return float(t.data_as<const int64_t>()[i]);
    default:
      return t.data_as<const float>()[i];
  }
}

bool zero_point_dtype_ok(DType d) {
  return d == DType::kUInt8 || d == DType::kInt8 || d == DType::kInt16 || d == DType::kInt32 ||
         d == DType::kInt64 || d == DType::kFloat32;
}

/// Scale (float32) and zero point (optional) checked against the blocks.
Status check_qparams(const KernelCall& call, const Blocks& b, const Tensor& scale,
                     const Tensor* zero_point) {
  TIR_RETURN_IF_ERROR(require_dtype(call, scale, DType::kFloat32, "scale"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, scale, "scale"));
  if (scale.numel() != b.num_blocks)
    return op_error(call, StatusCode::kInvalidArgument, "scale has ", scale.numel(),
                    " elements for ", b.num_blocks, " blocks");
  if (!zero_point) return ok_status();
  if (!zero_point_dtype_ok(zero_point->dtype))
    return op_error(call, StatusCode::kUnsupported, "zero_point of dtype ",
                    dtype_name(zero_point->dtype), " is not supported");
  TIR_RETURN_IF_ERROR(require_contiguous(call, *zero_point, "zero_point"));
  if (zero_point->numel() != b.num_blocks)
    return op_error(call, StatusCode::kInvalidArgument, "zero_point has ", zero_point->numel(),
                    " elements for ", b.num_blocks, " blocks");
  return ok_status();
}

template <typename T>
void store_as(void* out, int64_t i, float v) {
  static_cast<T*>(out)[i] = static_cast<T>(v);
}

/// Writes an integral float32 value `v` (already clamped) into an integer/float tensor.
void store(const Tensor& t, int64_t i, float v) {
  switch (t.dtype) {
    case DType::kUInt8:
      return store_as<uint8_t>(t.data, i, v);
    case DType::kInt8:
      return store_as<int8_t>(t.data, i, v);
    case DType::kInt16:
      return store_as<int16_t>(t.data, i, v);
    case DType::kInt32:
      // float32 holds int32's bounds only as +-2^31: keep the cast defined
      return store_as<int32_t>(t.data, i, std::min(v, 2147483520.0f));
    case DType::kInt64:
      return store_as<int64_t>(t.data, i, v);
    default:
      return store_as<float>(t.data, i, v);
  }
}

// ------------------------------------------------------------------------- kernels

class ChooseQParamsAffine final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    if (call.outputs.size() != 2)
      return op_error(call, StatusCode::kInvalidArgument, "expected 2 outputs");
    int x_index = -1;
    TIR_ASSIGN_OR_RETURN(const Tensor* x, named_tensor(call, "input", true, &x_index));
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
    TIR_ASSIGN_OR_RETURN(blocks_, Blocks::make(call, *x));
    const Arg* mapping = named(call, "mapping_type");
    if (!mapping || mapping->kind != ArgKind::kString)
      return op_error(call, StatusCode::kInvalidArgument, "argument 'mapping_type' must be a str");
    if (mapping->s == "SYMMETRIC") {
      mapping_ = Mapping::kSymmetric;
    } else if (mapping->s == "SYMMETRIC_NO_CLIPPING_ERR") {
      mapping_ = Mapping::kSymmetricNoClip;
    } else if (mapping->s == "ASYMMETRIC") {
      mapping_ = Mapping::kAsymmetric;
    } else {
      return op_error(call, StatusCode::kUnsupported, "mapping_type '", mapping->s,
                      "' is not supported (SYMMETRIC, SYMMETRIC_NO_CLIPPING_ERR and "
                      "ASYMMETRIC are)");
    }
    TIR_ASSIGN_OR_RETURN(const DType target, named_dtype(call, "target_dtype"));
    TIR_ASSIGN_OR_RETURN(const auto range, quant_range(call, target));
    qmin_ = range[0];
    qmax_ = range[1];
    const Arg* eps = named(call, "eps");
    if (eps && eps->kind != ArgKind::kFloat && eps->kind != ArgKind::kInt)
      return op_error(call, StatusCode::kInvalidArgument, "argument 'eps' must be a float");
    eps_ = eps ? float(eps->scalar()) : FLT_MIN;  // torch.finfo(float32).smallest_normal
    if (named(call, "scale_dtype")) {
      TIR_ASSIGN_OR_RETURN(const DType s, named_dtype(call, "scale_dtype"));
      if (s != DType::kFloat32)
        return op_error(call, StatusCode::kUnsupported, "scale_dtype ", dtype_name(s),
                        " is not supported (float32 is)");
    }
    // zero_point_dtype None: int32 for ASYMMETRIC, the scale's float32 otherwise
    DType zp = mapping_ == Mapping::kAsymmetric ? DType::kInt32 : DType::kFloat32;
    if (named(call, "zero_point_dtype")) {
      TIR_ASSIGN_OR_RETURN(zp, named_dtype(call, "zero_point_dtype"));
    }
    if (!zero_point_dtype_ok(zp))
      return op_error(call, StatusCode::kUnsupported, "zero_point_dtype ", dtype_name(zp),
                      " is not supported");
    const Arg* keepdim = named(call, "keepdim");
    const bool keep = keepdim && keepdim->i != 0;
    std::vector<int64_t> shape;
    for (int d = 0; d < blocks_.rank; ++d) {
      const size_t u = size_t(d);
      // without keepdim, torch's amin drops the dims reduced whole (block == size != 1)
      if (keep || blocks_.block[u] == 1 || blocks_.block[u] != blocks_.sizes[u])
        shape.push_back(keep                    ? blocks_.count[u]
                        : blocks_.block[u] == 1 ? blocks_.sizes[u]
                                                : blocks_.count[u]);
    }
    if (blocks_.num_blocks == 0 || x->numel() == 0)
      return op_error(call, StatusCode::kUnsupported, "input is empty");
    call.outputs[0].dtype = DType::kFloat32;
    call.outputs[0].set_shape(shape);
    call.outputs[1].dtype = zp;
    call.outputs[1].set_shape(shape);
    x_index_ = x_index;
    hi_.resize(size_t(blocks_.num_blocks));
    return ok_status();
  }

  Status run(const KernelCall& call, void*) override {
    const float* x = call.inputs[size_t(x_index_)].data_as<const float>();
    float* scale = call.outputs[0].data_as<float>();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // amin / amax per block (NaN propagates, as torch's reductions)
    std::fill(scale, scale + blocks_.num_blocks, std::numeric_limits<float>::infinity());
    float* hi = hi_.data();
    std::fill(hi_.begin(), hi_.end(), -std::numeric_limits<float>::infinity());
    blocks_.for_each_run([&](int64_t off, int64_t len, int64_t b) {
      float lo = scale[b], h = hi[b];
      for (int64_t i = off; i < off + len; ++i) {
        const float v = x[i];
        if (std::isnan(v) || std::isnan(lo)) {
          lo = h = nan;
        } else {
          lo = std::min(lo, v);
          h = std::max(h, v);
        }
      }
      scale[b] = lo;
      hi[b] = h;
    });
    const float qmin = float(qmin_), qmax = float(qmax_);
    const float mid = float(int64_t((qmax_ + qmin_ + 1) / 2.0));  // Python int() truncates
    const Tensor& zp_out = call.outputs[1];
    for (int64_t b = 0; b < blocks_.num_blocks; ++b) {
      // torch.min / torch.max against zero propagate NaN
      const float lo = std::isnan(scale[b]) ? nan : std::min(scale[b], 0.0f);
      const float h = std::isnan(hi[b]) ? nan : std::max(hi[b], 0.0f);
      float s = 0, zp = mid;
      switch (mapping_) {
        case Mapping::kSymmetric: {
          const float m = std::isnan(lo) || std::isnan(h) ? nan : std::max(-lo, h);
          s = m / float((qmax_ - qmin_) / 2.0);
          break;
        }
        case Mapping::kSymmetricNoClip: {
          const float smin = lo / qmin, smax = h / qmax;
          s = smin > smax ? smin : smax;
          break;
        }
        case Mapping::kAsymmetric:
          s = (h - lo) / float(qmax_ - qmin_);
          break;
      }
      s = std::isnan(s) ? s : std::max(s, eps_);  // torch.clamp(min=eps)
      if (mapping_ == Mapping::kAsymmetric) {
        zp = qmin - std::nearbyint(lo / s);
        zp = std::isnan(zp) ? qmin : std::min(std::max(zp, qmin), qmax);
      }
      scale[b] = s;
      store(zp_out, b, zp);
    }
    return ok_status();
  }

 private:
  enum class Mapping { kSymmetric, kSymmetricNoClip, kAsymmetric };
  Blocks blocks_;
  Mapping mapping_ = Mapping::kSymmetric;
  int64_t qmin_ = 0, qmax_ = 0;
  float eps_ = FLT_MIN;
  int x_index_ = -1;
  std::vector<float> hi_;  // per-block maxima (prepare sized it by the block count)
};

class QuantizeAffine final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    TIR_ASSIGN_OR_RETURN(const Tensor* x, named_tensor(call, "input", true, &x_));
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
    TIR_ASSIGN_OR_RETURN(blocks_, Blocks::make(call, *x));
    TIR_ASSIGN_OR_RETURN(const Tensor* s, named_tensor(call, "scale", true, &scale_));
    TIR_ASSIGN_OR_RETURN(const Tensor* z, named_tensor(call, "zero_point", false, &zero_point_));
    if (z && z->numel() == 0) zero_point_ = -1;  // torchao reads an empty zero point as None
    TIR_RETURN_IF_ERROR(check_qparams(call, blocks_, *s, zero_point_ >= 0 ? z : nullptr));
    TIR_ASSIGN_OR_RETURN(const DType out, named_dtype(call, "output_dtype"));
    TIR_ASSIGN_OR_RETURN(const auto range, quant_range(call, out));
    qmin_ = float(range[0]);
    qmax_ = float(range[1]);
    call.outputs[0].dtype = out;
    call.outputs[0].set_shape(x->shape());
    return ok_status();
  }

  Status run(const KernelCall& call, void*) override {
    const float* x = call.inputs[size_t(x_)].data_as<const float>();
    const float* scale = call.inputs[size_t(scale_)].data_as<const float>();
    const Tensor* zp = zero_point_ >= 0 ? &call.inputs[size_t(zero_point_)] : nullptr;
    const Tensor& out = call.outputs[0];
    blocks_.for_each_run([&](int64_t off, int64_t len, int64_t b) {
      const float inv = 1.0f / scale[b];  // torch: scale.reciprocal() * 1.0
      const float z = zp ? element_as_float(*zp, b) : 0.0f;
      for (int64_t i = off; i < off + len; ++i) {
        const float r = std::nearbyint(x[i] * inv) + z;
        // torch.clamp keeps NaN, whose integer cast is undefined: qmin
        store(out, i, std::isnan(r) ? qmin_ : std::min(std::max(r, qmin_), qmax_));
      }
    });
    return ok_status();
  }

 private:
  Blocks blocks_;
  int x_ = -1, scale_ = -1, zero_point_ = -1;
  float qmin_ = 0, qmax_ = 0;
};

class DequantizeAffine final : public Kernel {
 public:
  Status prepare(const KernelCall& call, PrepareInfo*) override {
    TIR_ASSIGN_OR_RETURN(const Tensor* q, named_tensor(call, "input", true, &q_));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *q, "input"));
    TIR_ASSIGN_OR_RETURN(const DType in, named_dtype(call, "input_dtype"));
    TIR_RETURN_IF_ERROR(dtype_bounds(call, in).status());
    TIR_RETURN_IF_ERROR(require_dtype(call, *q, in, "input"));
    TIR_ASSIGN_OR_RETURN(blocks_, Blocks::make(call, *q));
    TIR_ASSIGN_OR_RETURN(const Tensor* s, named_tensor(call, "scale", true, &scale_));
    TIR_ASSIGN_OR_RETURN(const Tensor* z, named_tensor(call, "zero_point", false, &zero_point_));
    TIR_RETURN_IF_ERROR(check_qparams(call, blocks_, *s, z));
    if (named(call, "output_dtype")) {
      TIR_ASSIGN_OR_RETURN(const DType out, named_dtype(call, "output_dtype"));
      if (out != DType::kFloat32)
        return op_error(call, StatusCode::kUnsupported, "output_dtype ", dtype_name(out),
                        " is not supported (float32 is)");
    }
    call.outputs[0].dtype = DType::kFloat32;
    call.outputs[0].set_shape(q->shape());
    return ok_status();
  }

  Status run(const KernelCall& call, void*) override {
    const Tensor& q = call.inputs[size_t(q_)];
    const float* scale = call.inputs[size_t(scale_)].data_as<const float>();
    const Tensor* zp = zero_point_ >= 0 ? &call.inputs[size_t(zero_point_)] : nullptr;
    float* y = call.outputs[0].data_as<float>();
    blocks_.for_each_run([&](int64_t off, int64_t len, int64_t b) {
      const float s = scale[b];
      const float z = zp ? element_as_float(*zp, b) : 0.0f;
      for (int64_t i = off; i < off + len; ++i) y[i] = (element_as_float(q, i) - z) * s;
    });
    return ok_status();
  }

 private:
  Blocks blocks_;
  int q_ = -1, scale_ = -1, zero_point_ = -1;
};

}  // namespace

void register_affine_quantize_ref(KernelRegistry& registry) {
  registry.add({
      {"torchao::choose_qparams_affine", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<ChooseQParamsAffine>},
      {"torchao::quantize_affine", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
       &make_kernel<QuantizeAffine>},
      {"torchao::dequantize_affine", DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference,
       &make_kernel<DequantizeAffine>},
  });
}

}  // namespace tir::kernels
