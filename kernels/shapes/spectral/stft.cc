#include "kernels/shapes/spectral/stft.h"

#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

Result<int64_t> optional_int(const KernelCall& call, size_t idx, std::string_view name,
                             int64_t fallback) {
  if (call.args[idx].is_none()) return fallback;
  return int_arg(call, idx, name);
}

Result<bool> optional_bool(const KernelCall& call, size_t idx, std::string_view name,
                           bool fallback) {
  if (call.args[idx].is_none()) return fallback;
  return bool_arg(call, idx, name);
}

// n_fft, hop_length, win_length and window (arguments 1-4), shared by stft and istft.
Status window_args(const KernelCall& call, StftParams& p) {
  TIR_ASSIGN_OR_RETURN(p.n_fft, int_arg(call, 1, "n_fft"));
  if (p.n_fft < 1)
    return op_error(call, StatusCode::kInvalidArgument, "n_fft ", p.n_fft, " must be positive");
  TIR_ASSIGN_OR_RETURN(p.hop, optional_int(call, 2, "hop_length", p.n_fft / 4));
  TIR_ASSIGN_OR_RETURN(p.win_length, optional_int(call, 3, "win_length", p.n_fft));
  if (p.hop < 1)
    return op_error(call, StatusCode::kInvalidArgument, "hop_length ", p.hop, " must be positive");
  if (p.win_length < 1 || p.win_length > p.n_fft)
    return op_error(call, StatusCode::kInvalidArgument, "win_length ", p.win_length,
                    " must be in [1, n_fft = ", p.n_fft, "]");
  p.win_offset = (p.n_fft - p.win_length) / 2;
  p.freqs = p.n_fft / 2 + 1;
  TIR_ASSIGN_OR_RETURN(const Tensor* w, optional_tensor_arg(call, 4, "window"));
  if (w) {
    TIR_RETURN_IF_ERROR(require_contiguous(call, *w, "window"));
    if (w->rank != 1 || w->sizes[0] != p.win_length)
      return op_error(call, StatusCode::kInvalidArgument, "window of shape ", shape_str(w->shape()),
                      ", expected [", p.win_length, "] (win_length)");
    if (w->dtype != p.part)
      return op_error(call, StatusCode::kUnsupported, "window has dtype ", dtype_name(w->dtype),
                      ", the signal ", dtype_name(p.part), " (a complex window is not supported)");
    p.window = static_cast<int>(tensor_input_index(call, 4));
  }
  return ok_status();
}

// The common stft: `center` (pad n_fft/2 each side, `reflect` or zeros), then the frames.
Result<StftParams> stft_common(const KernelCall& call, bool center, bool reflect,
                               size_t normalized_at, PrepareInfo* info) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (x->dtype != DType::kFloat32 && x->dtype != DType::kFloat64)
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype), " (a real float32/float64 signal is supported)");
  if (x->rank != 1 && x->rank != 2)
    return op_error(call, StatusCode::kInvalidArgument, "expected a 1-D or 2-D signal, got ",
                    shape_str(x->shape()));
  StftParams p;
  p.part = x->dtype;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.batch = x->rank == 2 ? x->sizes[0] : 1;
  p.length = x->sizes[x->rank - 1];
  TIR_RETURN_IF_ERROR(window_args(call, p));
  TIR_ASSIGN_OR_RETURN(p.normalized, bool_arg(call, normalized_at, "normalized"));
  TIR_ASSIGN_OR_RETURN(bool onesided, optional_bool(call, normalized_at + 1, "onesided", true));
  TIR_ASSIGN_OR_RETURN(bool complex_out,
                       optional_bool(call, normalized_at + 2, "return_complex", false));
  TIR_ASSIGN_OR_RETURN(bool align,
                       optional_bool(call, normalized_at + 3, "align_to_window", false));
  if (!onesided || !complex_out || align)
    return op_error(call, StatusCode::kUnsupported,
                    "only onesided=True, return_complex=True, align_to_window=False is supported");
  p.reflect = reflect;
  p.pad = center ? p.n_fft / 2 : 0;
  if (center && reflect && p.pad >= p.length)
    return op_error(call, StatusCode::kInvalidArgument, "reflect padding of ", p.pad,
                    " needs a signal longer than that, got ", p.length, " samples");
  const int64_t padded = p.length + 2 * p.pad;
  if (padded < p.n_fft)
    return op_error(call, StatusCode::kInvalidArgument, "a signal of ", padded,
                    " samples is shorter than n_fft = ", p.n_fft);
  p.frames = 1 + (padded - p.n_fft) / p.hop;
  info->scratch_bytes = size_t(p.n_fft) * 2 * 2 * dtype_size(p.part);  // two complex lines
  std::vector<int64_t> shape;
  if (x->rank == 2) shape.push_back(p.batch);
  shape.push_back(p.freqs);
  shape.push_back(p.frames);
  call.outputs[0].dtype = complex_dtype_of(p.part);
  call.outputs[0].set_shape(shape);
  return p;
}

}  // namespace

Result<StftParams> stft_prepare(const KernelCall& call, PrepareInfo* info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 9, 1));
  return stft_common(call, false, true, 5, info);
}

Result<StftParams> stft_prepare_center(const KernelCall& call, PrepareInfo* info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 11, 1));
  TIR_ASSIGN_OR_RETURN(bool center, bool_arg(call, 5, "center"));
  const Arg& mode = call.args[6];
  if (mode.kind != ArgKind::kString || (mode.s != "reflect" && mode.s != "constant"))
    return op_error(call, StatusCode::kUnsupported, "pad_mode '", mode.s,
                    "' (reflect and constant are supported)");
  return stft_common(call, center, mode.s == "reflect", 7, info);
}

Result<StftParams> istft_prepare(const KernelCall& call, PrepareInfo* info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 10, 1));
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  if (!dtype_is_complex(x->dtype))
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype), " (expected a complex spectrum)");
  if (x->rank != 2 && x->rank != 3)
    return op_error(call, StatusCode::kInvalidArgument,
                    "expected a [freqs, frames] or [batch, freqs, frames] spectrum, got ",
                    shape_str(x->shape()));
  StftParams p;
  p.part = complex_part_dtype(x->dtype);
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.batch = x->rank == 3 ? x->sizes[0] : 1;
  TIR_RETURN_IF_ERROR(window_args(call, p));
  TIR_ASSIGN_OR_RETURN(bool center, bool_arg(call, 5, "center"));
  TIR_ASSIGN_OR_RETURN(p.normalized, bool_arg(call, 6, "normalized"));
  const int64_t freqs = x->sizes[x->rank - 2];
  TIR_ASSIGN_OR_RETURN(bool onesided, optional_bool(call, 7, "onesided", freqs != p.n_fft));
  TIR_ASSIGN_OR_RETURN(bool complex_out, bool_arg(call, 9, "return_complex"));
  if (!onesided || complex_out)
    return op_error(call, StatusCode::kUnsupported,
                    "only onesided=True, return_complex=False is supported");
  if (freqs != p.freqs)
    return op_error(call, StatusCode::kInvalidArgument, "a onesided spectrum of n_fft ", p.n_fft,
                    " has ", p.freqs, " frequencies, got ", freqs);
  p.frames = x->sizes[x->rank - 1];
  if (p.frames < 1) return op_error(call, StatusCode::kInvalidArgument, "a spectrum of no frames");
  p.full_length = p.n_fft + p.hop * (p.frames - 1);
  p.start = center ? p.n_fft / 2 : 0;
  const int64_t end = center ? p.full_length - p.n_fft / 2 : p.full_length;
  p.length = end - p.start;
  if (!call.args[8].is_none()) {
    TIR_ASSIGN_OR_RETURN(p.length, int_arg(call, 8, "length"));
    if (p.length < 0)
      return op_error(call, StatusCode::kInvalidArgument, "length ", p.length, " is negative");
  }
  if (p.length < 0) p.length = 0;
  // Scratch: the overlap-added signal and window envelope, and two complex lines of n_fft.
  info->scratch_bytes = (size_t(p.full_length) * 2 + size_t(p.n_fft) * 4) * dtype_size(p.part);
  std::vector<int64_t> shape;
  if (x->rank == 3) shape.push_back(p.batch);
  shape.push_back(p.length);
  call.outputs[0].dtype = p.part;
  call.outputs[0].set_shape(shape);
  return p;
}

namespace {

Result<WindowParams> window_common(const KernelCall& call, bool periodic, size_t dtype_at) {
  WindowParams p;
  p.periodic = periodic;
  TIR_ASSIGN_OR_RETURN(p.length, int_arg(call, 0, "window_length"));
  if (p.length < 0)
    return op_error(call, StatusCode::kInvalidArgument, "window_length ", p.length, " is negative");
  TIR_ASSIGN_OR_RETURN(DType d, optional_dtype_arg(call, dtype_at, "dtype", true));
  p.dtype = d == DType::kUndefined ? DType::kFloat32 : d;
  if (p.dtype != DType::kFloat32 && p.dtype != DType::kFloat64)
    return op_error(call, StatusCode::kUnsupported, "a window of dtype ", dtype_name(p.dtype),
                    " (float32 and float64 are supported)");
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape({p.length});
  return p;
}

}  // namespace

Result<WindowParams> hann_window_prepare(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 5, 1));
  return window_common(call, true, 1);
}

Result<WindowParams> hann_window_prepare_periodic(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, 6, 1));
  TIR_ASSIGN_OR_RETURN(bool periodic, bool_arg(call, 1, "periodic"));
  return window_common(call, periodic, 2);
}

}  // namespace tir::kernels
