#include "kernels/shapes/resampling/upsample.h"

#include <cmath>
#include <optional>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

constexpr bool has_align(Resample m) {
  return m != Resample::kNearest && m != Resample::kNearestExact;
}

std::optional<double> optional_float(const KernelCall& call, size_t idx) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return std::nullopt;
  return call.args[idx].scalar();
}

// The given scale factors: the `.vec` overloads' list, or one optional float per dim.
Status given_scales(const KernelCall& call, size_t idx, bool vec, int dims,
                    std::array<std::optional<double>, 3>& scales) {
  if (!vec) {
    for (int d = 0; d < dims; ++d) scales[d] = optional_float(call, idx + d);
    return ok_status();
  }
  if (idx >= call.args.size() || call.args[idx].is_none()) return ok_status();
  const Arg& a = call.args[idx];
  if (a.kind != ArgKind::kFloats || static_cast<int>(a.floats.size()) != dims)
    return op_error(call, StatusCode::kInvalidArgument, "scale_factors needs ", dims, " floats");
  for (int d = 0; d < dims; ++d) scales[d] = a.floats[d];
  return ok_status();
}

// Output size and scale factors: from output_size, or floor(in * scale).
Status upsample_sizes(const KernelCall& call, const Tensor& x,
                      const std::array<std::optional<double>, 3>& scales, UpsampleParams& p) {
  if (x.rank != p.dims + 2 && x.rank != p.dims + 1)
    return op_error(call, StatusCode::kInvalidArgument, "input must be ", p.dims + 1, "-D or ",
                    p.dims + 2, "-D, got ", shape_str(x.shape()));
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.planes = prod(x.shape(), 0, x.rank - p.dims);
  const bool has_size = call.args.size() > 1 && !call.args[1].is_none();
  std::span<const int64_t> size;
  if (has_size) {
    TIR_ASSIGN_OR_RETURN(size, ints_arg(call, 1, "output_size"));
    if (static_cast<int>(size.size()) != p.dims)
      return op_error(call, StatusCode::kInvalidArgument, "output_size needs ", p.dims, " values");
  }
  std::vector<int64_t> out(x.shape().begin(), x.shape().end() - p.dims);
  for (int d = 0; d < p.dims; ++d) {
    p.in[d] = x.sizes[x.rank - p.dims + d];
    if (has_size) {
      p.out[d] = size[d];
    } else if (scales[d]) {
      p.out[d] = static_cast<int64_t>(std::floor(static_cast<double>(p.in[d]) * *scales[d]));
    } else {
      return op_error(call, StatusCode::kInvalidArgument, "needs output_size or scale factors");
    }
    p.scale[d] = scales[d].value_or(0);
    if (p.out[d] <= 0)
      return op_error(call, StatusCode::kInvalidArgument, "output size must be positive");
    if (p.in[d] <= 0)
      return op_error(call, StatusCode::kInvalidArgument, "input of shape ", shape_str(x.shape()),
                      " has an empty spatial dim");
    out.push_back(p.out[d]);
  }
  call.outputs[0].dtype = x.dtype;
  call.outputs[0].set_shape(out);
  return ok_status();
}

}  // namespace

template <Resample Mode, int Dims, bool Vec>
Result<UpsampleParams> upsample_prepare(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  constexpr size_t kScales = has_align(Mode) ? 3 : 2;  // where the scales start
  TIR_RETURN_IF_ERROR(check_arity(call, Vec ? kScales + 1 : kScales + Dims, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  // float64 in every mode but the antialiased ones.
  constexpr bool kF64Mode = Mode != Resample::kLinearAa && Mode != Resample::kCubicAa;
  if (!(kF64Mode && x->dtype == DType::kFloat64))
    TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, "input"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "input"));
  UpsampleParams p;
  p.dtype = x->dtype;
  p.mode = Mode;
  p.dims = Dims;
  if constexpr (has_align(Mode)) {
    TIR_ASSIGN_OR_RETURN(p.align_corners, bool_arg(call, 2, "align_corners"));
    if (p.align_corners && (Mode == Resample::kLinearAa || Mode == Resample::kCubicAa))
      return op_error(call, StatusCode::kUnsupported,
                      "antialiased resampling with align_corners=True is not supported");
  }
  std::array<std::optional<double>, 3> scales;
  TIR_RETURN_IF_ERROR(given_scales(call, kScales, Vec, Dims, scales));
  TIR_RETURN_IF_ERROR(upsample_sizes(call, *x, scales, p));
  return p;
}

#define TIR_UPSAMPLE_PREPARE(mode, dims)                                                           \
  template Result<UpsampleParams> upsample_prepare<Resample::mode, dims, true>(const KernelCall&,  \
                                                                               PrepareInfo*);      \
  template Result<UpsampleParams> upsample_prepare<Resample::mode, dims, false>(const KernelCall&, \
                                                                                PrepareInfo*);
TIR_UPSAMPLE_PREPARE(kNearest, 1)
TIR_UPSAMPLE_PREPARE(kNearest, 2)
TIR_UPSAMPLE_PREPARE(kNearest, 3)
TIR_UPSAMPLE_PREPARE(kNearestExact, 1)
TIR_UPSAMPLE_PREPARE(kNearestExact, 2)
TIR_UPSAMPLE_PREPARE(kNearestExact, 3)
TIR_UPSAMPLE_PREPARE(kLinear, 1)
TIR_UPSAMPLE_PREPARE(kLinear, 2)
TIR_UPSAMPLE_PREPARE(kLinear, 3)
TIR_UPSAMPLE_PREPARE(kCubic, 2)
TIR_UPSAMPLE_PREPARE(kLinearAa, 2)
TIR_UPSAMPLE_PREPARE(kCubicAa, 2)
#undef TIR_UPSAMPLE_PREPARE

}  // namespace tir::kernels
