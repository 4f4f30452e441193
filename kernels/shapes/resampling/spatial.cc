#include "kernels/shapes/resampling/spatial.h"

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

// An int[Dims] argument: one value means all dims; empty takes `fallback`.
Result<std::array<int64_t, 3>> int_n(const KernelCall& call, size_t idx, std::string_view name,
                                     int dims, const std::array<int64_t, 3>* fallback) {
  TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, idx, name));
  std::array<int64_t, 3> out{};
  if (v.empty() && fallback) return *fallback;
  if (v.size() != 1 && v.size() != static_cast<size_t>(dims))
    return op_error(call, StatusCode::kInvalidArgument, "argument '", name, "' ", shape_str(v),
                    " needs 1 or ", dims, " values");
  for (int d = 0; d < dims; ++d) out[d] = v[v.size() == 1 ? 0 : d];
  return out;
}

std::optional<double> optional_float(const KernelCall& call, size_t idx) {
  if (idx >= call.args.size() || call.args[idx].is_none()) return std::nullopt;
  return call.args[idx].scalar();
}

}  // namespace

template <int Dims>
Result<AvgPoolParams> spatial_prepare_avg_pool(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, Dims == 1 ? 6 : 7, 1));  // avg_pool1d: no divisor
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_input(call, "self"));
  if (x->rank != Dims + 1 && x->rank != Dims + 2)
    return op_error(call, StatusCode::kInvalidArgument, "self must be ", Dims + 1, "-D or ",
                    Dims + 2, "-D, got ", shape_str(x->shape()));
  AvgPoolParams p;
  p.dims = Dims;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  TIR_ASSIGN_OR_RETURN(p.kernel, int_n(call, 1, "kernel_size", Dims, nullptr));
  TIR_ASSIGN_OR_RETURN(p.stride, int_n(call, 2, "stride", Dims, &p.kernel));
  TIR_ASSIGN_OR_RETURN(p.pad, int_n(call, 3, "padding", Dims, nullptr));
  TIR_ASSIGN_OR_RETURN(const bool ceil_mode, bool_arg(call, 4, "ceil_mode"));
  TIR_ASSIGN_OR_RETURN(p.count_include_pad, bool_arg(call, 5, "count_include_pad"));
  if (Dims > 1 && !call.args[6].is_none()) {
    TIR_ASSIGN_OR_RETURN(p.divisor, int_arg(call, 6, "divisor_override"));
    if (p.divisor == 0)
      return op_error(call, StatusCode::kInvalidArgument, "divisor_override must be non-zero");
  }
  const int lead = x->rank - Dims;
  p.planes = prod(x->shape(), 0, lead);
  std::vector<int64_t> out_shape(x->shape().begin(), x->shape().begin() + lead);
  for (int d = 0; d < Dims; ++d) {
    const int64_t in = x->sizes[lead + d], k = p.kernel[d], s = p.stride[d], pad = p.pad[d];
    if (k <= 0 || s <= 0 || pad < 0 || pad * 2 > k)
      return op_error(call, StatusCode::kInvalidArgument,
                      "kernel and stride must be positive and padding at most half the kernel");
    const int64_t span = in + 2 * pad - k;
    if (span < 0)
      return op_error(call, StatusCode::kInvalidArgument, "kernel ", k,
                      " is larger than the padded input ", in + 2 * pad);
    int64_t o = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (o - 1) * s >= in + pad) --o;
    p.in[d] = in;
    p.out[d] = o;
    out_shape.push_back(o);
  }
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(out_shape);
  return p;
}

template Result<AvgPoolParams> spatial_prepare_avg_pool<1>(const KernelCall&, PrepareInfo*);
template Result<AvgPoolParams> spatial_prepare_avg_pool<2>(const KernelCall&, PrepareInfo*);
template Result<AvgPoolParams> spatial_prepare_avg_pool<3>(const KernelCall&, PrepareInfo*);

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
Result<UpsampleParams> spatial_prepare_nearest(const KernelCall& call, PrepareInfo* out_info) {
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
Result<UpsampleParams> spatial_prepare_bilinear(const KernelCall& call, PrepareInfo* out_info) {
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

template Result<UpsampleParams> spatial_prepare_nearest<true>(const KernelCall&, PrepareInfo*);
template Result<UpsampleParams> spatial_prepare_nearest<false>(const KernelCall&, PrepareInfo*);
template Result<UpsampleParams> spatial_prepare_bilinear<true>(const KernelCall&, PrepareInfo*);
template Result<UpsampleParams> spatial_prepare_bilinear<false>(const KernelCall&, PrepareInfo*);

namespace {

Status group_norm_common(const KernelCall& call, const Tensor& x, GroupNormParams& p,
                         size_t weight_idx, size_t bias_idx) {
  if (x.rank < 2) return op_error(call, StatusCode::kInvalidArgument, "input must be at least 2-D");
  p.input = static_cast<int>(tensor_input_index(call, 0));
  if (p.groups <= 0 || p.c % p.groups != 0)
    return op_error(call, StatusCode::kInvalidArgument, "channels ", p.c,
                    " are not divisible into ", p.groups, " groups");
  for (auto [idx, out, name] :
       {std::tuple{weight_idx, &p.weight, "weight"}, std::tuple{bias_idx, &p.bias, "bias"}}) {
    TIR_ASSIGN_OR_RETURN(const Tensor* t, optional_tensor_arg(call, idx, name));
    if (!t) continue;
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, DType::kFloat32, name));
    TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
    if (t->numel() != p.c)
      return op_error(call, StatusCode::kInvalidArgument, name, " must have ", p.c,
                      " elements, got ", shape_str(t->shape()));
    *out = static_cast<int>(tensor_input_index(call, idx));
  }
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(x.shape());
  return ok_status();
}

}  // namespace

Result<GroupNormParams> spatial_prepare_native_group_norm(const KernelCall& call,
                                                          PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 8, 3));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_input(call, "input"));
  GroupNormParams p;
  p.stats = true;
  TIR_ASSIGN_OR_RETURN(p.n, int_arg(call, 3, "N"));
  TIR_ASSIGN_OR_RETURN(p.c, int_arg(call, 4, "C"));
  TIR_ASSIGN_OR_RETURN(p.hw, int_arg(call, 5, "HxW"));
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 6, "group"));
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 7, "eps"));
  if (p.n * p.c * p.hw != x->numel() || (x->rank >= 2 && x->sizes[1] != p.c))
    return op_error(call, StatusCode::kInvalidArgument, "N, C, HxW do not match input ",
                    shape_str(x->shape()));
  TIR_RETURN_IF_ERROR(group_norm_common(call, *x, p, 1, 2));
  for (int k = 1; k < 3; ++k) {
    call.outputs[k].dtype = DType::kFloat32;
    call.outputs[k].set_shape({p.n, p.groups});
  }
  return p;
}

Result<GroupNormParams> spatial_prepare_group_norm(const KernelCall& call, PrepareInfo* out_info) {
  (void)out_info;
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, float_input(call, "input"));
  GroupNormParams p;
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 1, "num_groups"));
  TIR_ASSIGN_OR_RETURN(p.eps, scalar_arg(call, 4, "eps"));
  if (x->rank < 2) return op_error(call, StatusCode::kInvalidArgument, "input must be >= 2-D");
  p.n = x->sizes[0];
  p.c = x->sizes[1];
  p.hw = prod(x->shape(), 2, x->rank);
  TIR_RETURN_IF_ERROR(group_norm_common(call, *x, p, 2, 3));
  return p;
}

Result<WeightNormParams> spatial_prepare_weight_norm(const KernelCall& call,
                                                     PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 3, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* v, float_input(call, "v"));
  TIR_ASSIGN_OR_RETURN(const Tensor* g, tensor_arg(call, 1, "g"));
  TIR_RETURN_IF_ERROR(require_dtype(call, *g, DType::kFloat32, "g"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *g, "g"));
  TIR_ASSIGN_OR_RETURN(const int64_t dim, int_arg(call, 2, "dim"));
  WeightNormParams p;
  p.v = static_cast<int>(tensor_input_index(call, 0));
  p.g = static_cast<int>(tensor_input_index(call, 1));
  if (dim == -1) {
    p.inner = v->numel();
  } else {
    TIR_ASSIGN_OR_RETURN(const int d, normalize_dim(call, dim, v->rank, "dim"));
    p.outer = prod(v->shape(), 0, d);
    p.n = v->rank ? v->sizes[d] : 1;
    p.inner = prod(v->shape(), d + 1, v->rank);
  }
  if (g->numel() != p.n)
    return op_error(call, StatusCode::kInvalidArgument, "g ", shape_str(g->shape()), " must have ",
                    p.n, " elements");
  out_info->scratch_bytes = static_cast<size_t>(p.n) * sizeof(double);
  call.outputs[0].dtype = DType::kFloat32;
  call.outputs[0].set_shape(v->shape());
  return p;
}

}  // namespace tir::kernels
