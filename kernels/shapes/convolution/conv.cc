#include "kernels/shapes/convolution/conv.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

// The folded batch norm's tensors: float32, contiguous, one value per output channel.
Status check_batch_norm(const KernelCall& call, int64_t oc) {
  const BatchNormFold& bn = call.batch_norm;
  if (!bn.present()) return ok_status();
  for (const auto& [at, name] :
       {std::pair{bn.weight, "batch norm weight"}, std::pair{bn.bias, "batch norm bias"},
        std::pair{bn.mean, "batch norm running_mean"},
        std::pair{bn.var, "batch norm running_var"}}) {
    if (at < 0) continue;
    if (size_t(at) >= call.inputs.size())
      return op_error(call, StatusCode::kInternal, name, " is not an input");
    const Tensor& t = call.inputs[at];
    TIR_RETURN_IF_ERROR(require_dtype(call, t, DType::kFloat32, name));
    TIR_RETURN_IF_ERROR(require_contiguous(call, t, name));
    if (t.rank != 1 || t.sizes[0] != oc)
      return op_error(call, StatusCode::kInvalidArgument, name, " ", shape_str(t.shape()),
                      " must be [", oc, "] (conv output channels)");
  }
  return ok_status();
}

// The fused residual (KernelCall::residual): float32, contiguous or channels-last, shaped like
// the output.
Status check_residual(const KernelCall& call, bool batched, std::span<const int64_t> out) {
  if (call.residual < 0) return ok_status();
  if (size_t(call.residual) >= call.inputs.size())
    return op_error(call, StatusCode::kInternal, "residual is not an input");
  if (!batched)
    return op_error(call, StatusCode::kInternal, "a fused residual needs a batched input");
  const Tensor& t = call.inputs[call.residual];
  TIR_RETURN_IF_ERROR(require_dtype(call, t, DType::kFloat32, "residual"));
  if (!t.is_channels_last()) TIR_RETURN_IF_ERROR(require_contiguous(call, t, "residual"));
  if (!std::equal(out.begin(), out.end(), t.shape().begin(), t.shape().end()))
    return op_error(call, StatusCode::kInvalidArgument, "residual ", shape_str(t.shape()),
                    " must match the output ", shape_str(out));
  return ok_status();
}

// Input, weight and optional bias: float32, or float64 (torch's double convolution; the
// reference kernels only), contiguous (the input may be channels-last).
Status check_conv_tensors(const KernelCall& call, const Tensor* x, const Tensor* wt,
                          const Tensor* b) {
  const DType want = x->dtype == DType::kFloat64 ? DType::kFloat64 : DType::kFloat32;
  for (const auto& [t, name] :
       {std::pair{x, "input"}, std::pair{wt, "weight"}, std::pair{b, "bias"}}) {
    if (t == nullptr) continue;
    TIR_RETURN_IF_ERROR(require_dtype(call, *t, want, name));
    // Channels-last activations reach only kernels that read them (runtime/passes/layout.h).
    if (t != x || !t->is_channels_last()) TIR_RETURN_IF_ERROR(require_contiguous(call, *t, name));
  }
  return ok_status();
}

// The input is [N, C, H, W] (or [C, H, W] where unbatched inputs are allowed), the weight
// [OC, C/groups, KH, KW]; or their 1-D forms [N, C, L] and [OC, C/groups, K], or their 3-D
// forms [N, C, D, H, W] and [OC, C/groups, KD, KH, KW].
Status check_conv_ranks(const KernelCall& call, const Tensor& x, const Tensor& wt, int spatial,
                        bool batched, bool allow_unbatched) {
  if (!batched && !(allow_unbatched && x.rank == spatial + 1)) {
    if (spatial == 1)
      return op_error(call, StatusCode::kInvalidArgument,
                      "a 1-D convolution needs a 3-D [N, C, L] input, got ", shape_str(x.shape()));
    if (spatial == 3)
      return op_error(
          call, StatusCode::kInvalidArgument, "a 3-D convolution needs a 5-D [N, C, D, H, W] input",
          allow_unbatched ? " or 4-D [C, D, H, W]" : "", ", got ", shape_str(x.shape()));
    return op_error(call, StatusCode::kInvalidArgument, "input must be 4-D [N, C, H, W]",
                    allow_unbatched ? " or 3-D [C, H, W]" : "", ", got ", shape_str(x.shape()));
  }
  if (wt.rank != spatial + 2) {
    return op_error(call, StatusCode::kInvalidArgument, "weight must be ", spatial + 2,
                    "-D [OC, C/groups, ", spatial == 3 ? "KD, KH, KW" : "KH, KW", "], got ",
                    shape_str(wt.shape()));
  }
  return ok_status();
}

// Reads the input and weight sizes (a 1-D convolution has H = KH = 1 and nothing along H; a
// 1-D or 2-D one D = KD = 1).
void read_conv_sizes(const Tensor& x, const Tensor& wt, int spatial, bool batched, ConvParams* p) {
  const int off = batched ? 0 : -1;
  p->n = batched ? x.sizes[0] : 1;
  p->c = x.sizes[1 + off];
  p->three_d = spatial == 3;
  p->d = spatial == 3 ? x.sizes[2 + off] : 1;
  p->h = spatial == 1 ? 1 : x.sizes[x.rank - 2];
  p->w = x.sizes[x.rank - 1];
  p->oc = wt.sizes[0];
  p->kd = spatial == 3 ? wt.sizes[2] : 1;
  p->kh = spatial == 1 ? 1 : wt.sizes[wt.rank - 2];
  p->kw = wt.sizes[wt.rank - 1];
  if (spatial == 1) {
    p->stride[0] = p->dil[0] = 1;
    p->pad[0] = 0;
  }
  if (spatial != 3) {
    p->stride_d = p->dil_d = 1;
    p->pad_d = 0;
  }
}

// Checks groups, stride, padding, dilation and the bias against the sizes; sets the output
// depth, height and width.
Status check_conv_geometry(const KernelCall& call, const Tensor& x, const Tensor& wt,
                           const Tensor* b, ConvParams* p) {
  if (p->groups <= 0) {
    return op_error(call, StatusCode::kInvalidArgument, "groups must be positive, got ", p->groups);
  }
  for (int i = 0; i < 3; ++i) {
    const int64_t stride = i < 2 ? p->stride[i] : p->stride_d;
    const int64_t dil = i < 2 ? p->dil[i] : p->dil_d;
    const int64_t pad = i < 2 ? p->pad[i] : p->pad_d;
    if (stride <= 0 || dil <= 0 || pad < 0) {
      return op_error(call, StatusCode::kInvalidArgument,
                      "stride and dilation must be positive and padding non-negative");
    }
  }
  if (p->c % p->groups != 0 || p->oc % p->groups != 0 || wt.sizes[1] * p->groups != p->c ||
      p->oc == 0) {
    return op_error(call, StatusCode::kInvalidArgument, "weight ", shape_str(wt.shape()),
                    " does not match input ", shape_str(x.shape()), " with groups=", p->groups,
                    " (expected weight.size(1) * groups == input channels)");
  }
  if (b != nullptr && (b->rank != 1 || b->sizes[0] != p->oc)) {
    return op_error(call, StatusCode::kInvalidArgument, "bias ", shape_str(b->shape()),
                    " must be [", p->oc, "]");
  }
  const int64_t ed = p->d + 2 * p->pad_d - p->dil_d * (p->kd - 1) - 1;
  const int64_t eh = p->h + 2 * p->pad[0] - p->dil[0] * (p->kh - 1) - 1;
  const int64_t ew = p->w + 2 * p->pad[1] - p->dil[1] * (p->kw - 1) - 1;
  if (ed < 0 || eh < 0 || ew < 0) {
    return op_error(call, StatusCode::kInvalidArgument, "kernel ",
                    p->three_d ? std::to_string(p->kd) + "x" : std::string(), p->kh, "x", p->kw,
                    " (dilated) is larger than the padded input ", shape_str(x.shape()));
  }
  p->od = ed / p->stride_d + 1;
  p->oh = eh / p->stride[0] + 1;
  p->ow = ew / p->stride[1] + 1;
  return ok_status();
}

// Validates everything once the stride, padding and dilation are known; fills the output.
Result<ConvParams> conv_finish(const KernelCall& call, ConvParams p, bool allow_unbatched) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "input"));
  TIR_ASSIGN_OR_RETURN(const Tensor* wt, tensor_arg(call, 1, "weight"));
  TIR_ASSIGN_OR_RETURN(const Tensor* b, optional_tensor_arg(call, 2, "bias"));
  TIR_RETURN_IF_ERROR(check_conv_tensors(call, x, wt, b));
  // A 1-D convolution ([N, C, L] input, [OC, C/groups, K] weight) runs as a 2-D one over
  // [N, C, 1, L]: same bytes, H = KH = 1, no stride, padding or dilation along H.
  const int spatial = wt->rank == 3 ? 1 : wt->rank == 5 ? 3 : 2;
  if (p.three_d != (spatial == 3))
    return op_error(call, StatusCode::kInvalidArgument, "weight ", shape_str(wt->shape()),
                    p.three_d ? " must be 5-D for a 3-D convolution"
                              : " is 5-D but stride, padding and dilation are not 3-D");
  const bool batched = x->rank == spatial + 2;
  TIR_RETURN_IF_ERROR(check_conv_ranks(call, *x, *wt, spatial, batched, allow_unbatched));
  read_conv_sizes(*x, *wt, spatial, batched, &p);
  TIR_RETURN_IF_ERROR(check_conv_geometry(call, *x, *wt, b, &p));
  if (call.batch_norm.present() && !batched) {
    return op_error(call, StatusCode::kInternal,
                    "a folded batch norm needs a batched [N, C, H, W] input");
  }
  TIR_RETURN_IF_ERROR(check_batch_norm(call, p.oc));
  std::vector<int64_t> out_shape;
  if (batched) out_shape.push_back(p.n);
  out_shape.push_back(p.oc);
  if (spatial == 3) out_shape.push_back(p.od);
  if (spatial != 1) out_shape.push_back(p.oh);
  out_shape.push_back(p.ow);
  TIR_RETURN_IF_ERROR(check_residual(call, batched, out_shape));
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.weight = static_cast<int>(tensor_input_index(call, 1));
  p.bias = b ? static_cast<int>(tensor_input_index(call, 2)) : -1;
  p.dtype = x->dtype;
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(out_shape);
  return p;
}

Status read_int2(const KernelCall& call, size_t idx, const char* name,
                 std::array<int64_t, 2>* out) {
  TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, idx, name));
  TIR_ASSIGN_OR_RETURN(*out, expand_param(call, v, name));
  return ok_status();
}

// A 3-D int[3] parameter (one value repeats): depth into *out_d, height and width into *out.
Status read_int3(const KernelCall& call, size_t idx, const char* name, int64_t* out_d,
                 std::array<int64_t, 2>* out) {
  TIR_ASSIGN_OR_RETURN(auto v, ints_arg(call, idx, name));
  if (v.size() != 1 && v.size() != 3)
    return op_error(call, StatusCode::kInvalidArgument, name, " ", shape_str(v),
                    " must have 1 or 3 elements");
  const bool one = v.size() == 1;
  *out_d = v[0];
  *out = {one ? v[0] : v[1], one ? v[0] : v[2]};
  return ok_status();
}

// stride, padding and dilation at args idx, idx + 1, idx + 2: 3-D when `three_d`.
Status read_conv_geometry(const KernelCall& call, size_t idx, bool three_d, ConvParams* p) {
  p->three_d = three_d;
  if (three_d) {
    TIR_RETURN_IF_ERROR(read_int3(call, idx, "stride", &p->stride_d, &p->stride));
    TIR_RETURN_IF_ERROR(read_int3(call, idx + 1, "padding", &p->pad_d, &p->pad));
    return read_int3(call, idx + 2, "dilation", &p->dil_d, &p->dil);
  }
  TIR_RETURN_IF_ERROR(read_int2(call, idx, "stride", &p->stride));
  TIR_RETURN_IF_ERROR(read_int2(call, idx + 1, "padding", &p->pad));
  return read_int2(call, idx + 2, "dilation", &p->dil);
}

}  // namespace

Result<ConvParams> conv_prepare_conv2d(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 7, 1));
  ConvParams p;
  TIR_RETURN_IF_ERROR(read_conv_geometry(call, 3, /*three_d=*/false, &p));
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 6, "groups"));
  (void)out_info;
  return conv_finish(call, p, /*allow_unbatched=*/true);
}

Result<ConvParams> conv_prepare_conv3d(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 7, 1));
  ConvParams p;
  TIR_RETURN_IF_ERROR(read_conv_geometry(call, 3, /*three_d=*/true, &p));
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 6, "groups"));
  (void)out_info;
  return conv_finish(call, p, /*allow_unbatched=*/true);
}

Result<ConvParams> conv_prepare_convolution(const KernelCall& call, PrepareInfo* out_info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 9, 1));
  ConvParams p;
  TIR_ASSIGN_OR_RETURN(bool transposed, bool_arg(call, 6, "transposed"));
  if (transposed) {
    return op_error(call, StatusCode::kUnsupported,
                    "a transposed convolution runs as aten::conv_transpose1d/2d/3d, which tirc "
                    "import writes for it: import the program again");
  }
  TIR_ASSIGN_OR_RETURN(auto stride, ints_arg(call, 3, "stride"));
  if (stride.size() < 1 || stride.size() > 3) {
    return op_error(call, StatusCode::kUnsupported,
                    "only 1-D, 2-D and 3-D convolution are supported (stride has ", stride.size(),
                    " elements)");
  }
  TIR_RETURN_IF_ERROR(read_conv_geometry(call, 3, stride.size() == 3, &p));
  TIR_ASSIGN_OR_RETURN(p.groups, int_arg(call, 8, "groups"));
  (void)out_info;
  return conv_finish(call, p, /*allow_unbatched=*/false);
}

ChannelAffine conv_batch_norm_channel(const KernelCall& call, int64_t oc) {
  const BatchNormFold& bn = call.batch_norm;
  if (!bn.present()) return {};
  const auto at = [&](int idx, double none) {
    return idx >= 0 ? double(call.inputs[idx].data_as<const float>()[oc]) : none;
  };
  const double scale = at(bn.weight, 1.0) / std::sqrt(at(bn.var, 0.0) + bn.eps);
  return {scale, at(bn.bias, 0.0) - at(bn.mean, 0.0) * scale};
}

}  // namespace tir::kernels
