#include "kernels/shapes/resampling/upsample.h"

#include <cmath>
#include <optional>
#include <tuple>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

Result<const Tensor*> float_input(const KernelCall& call, std::string_view name) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, name));
  TIR_RETURN_IF_ERROR(require_dtype(call, *x, DType::kFloat32, name));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, name));
  return x;
}

std::optional<double> optional_float(const KernelCall& call, size_t idx) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return std::nullopt;
  return call.args[idx].scalar();
}

}  // namespace

namespace {

// Output size and scale factors: from output_size, or floor(in * scale).
Status upsample_sizes(const KernelCall& call, const Tensor& x, size_t size_idx,
                      std::optional<double> sh, std::optional<double> sw, UpsampleParams& p) {
  if (x.rank != 4 && x.rank != 3)
    return op_error(call, StatusCode::kInvalidArgument, "input must be 3-D or 4-D, got ",
                    shape_str(x.shape()));
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.planes = prod(x.shape(), 0, x.rank - 2);
  p.ih = x.sizes[x.rank - 2];
  p.iw = x.sizes[x.rank - 1];
  const bool has_size = size_idx < call.args.size() && !call.args[size_idx].is_none();
  if (has_size) {
    TIR_ASSIGN_OR_RETURN(auto size, ints_arg(call, size_idx, "output_size"));
    if (size.size() != 2)
      return op_error(call, StatusCode::kInvalidArgument, "output_size needs 2 values");
    p.oh = size[0];
    p.ow = size[1];
  } else if (sh && sw) {
    p.oh = static_cast<int64_t>(std::floor(static_cast<double>(p.ih) * *sh));
    p.ow = static_cast<int64_t>(std::floor(static_cast<double>(p.iw) * *sw));
  } else {
    return op_error(call, StatusCode::kInvalidArgument, "needs output_size or scale factors");
  }
  p.scale_h = sh.value_or(0);
  p.scale_w = sw.value_or(0);
  if (p.oh <= 0 || p.ow <= 0)
    return op_error(call, StatusCode::kInvalidArgument, "output size must be positive");
  std::vector<int64_t> out(x.shape().begin(), x.shape().end() - 2);
  out.push_back(p.oh);
  out.push_back(p.ow);
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(out);
  return ok_status();
}

Status scale_factors(const KernelCall& call, size_t idx, std::optional<double>& sh,
                     std::optional<double>& sw) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return ok_status();
  const Arg& a = call.args[idx];
  if (a.kind != ArgKind::kFloats || a.floats.size() != 2)
    return op_error(call, StatusCode::kInvalidArgument, "scale_factors needs 2 floats");
  sh = a.floats[0];
  sw = a.floats[1];
  return ok_status();
}

}  // namespace

template <bool Vec>
Result<UpsampleParams> upsample_prepare_nearest(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, Vec ? 3 : 4, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_input(call, "input"));
  UpsampleParams p;
  std::optional<double> sh, sw;
  if (Vec) {
    TIR_RETURN_IF_ERROR(scale_factors(call, 2, sh, sw));
  } else {
    sh = optional_float(call, 2);
    sw = optional_float(call, 3);
  }
  TIR_RETURN_IF_ERROR(upsample_sizes(call, *x, 1, sh, sw, p));
  return p;
}

template <bool Vec>
Result<UpsampleParams> upsample_prepare_bilinear(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, Vec ? 4 : 5, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_input(call, "input"));
  UpsampleParams p;
  p.bilinear = true;
  TIR_ASSIGN_OR_RETURN(p.align_corners, bool_arg(call, 2, "align_corners"));
  std::optional<double> sh, sw;
  if (Vec) {
    TIR_RETURN_IF_ERROR(scale_factors(call, 3, sh, sw));
  } else {
    sh = optional_float(call, 3);
    sw = optional_float(call, 4);
  }
  TIR_RETURN_IF_ERROR(upsample_sizes(call, *x, 1, sh, sw, p));
  return p;
}

template Result<UpsampleParams> upsample_prepare_nearest<true>(const KernelCall&, PrepareInfo*);
template Result<UpsampleParams> upsample_prepare_nearest<false>(const KernelCall&, PrepareInfo*);
template Result<UpsampleParams> upsample_prepare_bilinear<true>(const KernelCall&, PrepareInfo*);
template Result<UpsampleParams> upsample_prepare_bilinear<false>(const KernelCall&, PrepareInfo*);

}  // namespace tir::kernels
