#include "kernels/shapes/spectral/fft.h"

#include <cmath>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir::kernels {
namespace {

// `self` for an FFT of `kind`: contiguous; complex for kC2R; real for kR2C; either for kC2C.
Result<FftParams> fft_input(const KernelCall& call, FftKind kind, bool allow_real) {
  TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
  TIR_RETURN_IF_ERROR(require_contiguous(call, *x, "self"));
  const bool is_complex = dtype_is_complex(x->dtype);
  const bool is_real = x->dtype == DType::kFloat32 || x->dtype == DType::kFloat64;
  const bool ok = kind == FftKind::kR2C   ? is_real
                  : kind == FftKind::kC2R ? is_complex
                                          : is_complex || (allow_real && is_real);
  if (!ok)
    return op_error(call, StatusCode::kUnsupported, "argument 'self' has dtype ",
                    dtype_name(x->dtype), " (expected ",
                    kind == FftKind::kR2C ? "float32 or float64"
                    : allow_real          ? "float32, float64, complex64 or complex128"
                                          : "complex64 or complex128",
                    ")");
  FftParams p;
  p.kind = kind;
  p.part = complex_part_dtype(x->dtype);
  p.input_complex = is_complex;
  p.input = static_cast<int>(tensor_input_index(call, 0));
  p.rank = x->rank;
  for (int d = 0; d < x->rank; ++d) p.in_sizes[d] = p.work_sizes[d] = x->sizes[d];
  return p;
}

// Appends the dims `dims` (distinct after wrapping) to p.dims.
Status set_dims(const KernelCall& call, FftParams& p, std::span<const int64_t> dims) {
  if (dims.empty() || dims.size() > size_t(p.rank))
    return op_error(call, StatusCode::kInvalidArgument, "'dim' lists ", dims.size(),
                    " dims of a rank-", p.rank, " tensor");
  uint32_t seen = 0;
  for (int64_t d : dims) {
    TIR_ASSIGN_OR_RETURN(int nd, normalize_dim(call, d, p.rank, "dim"));
    if (seen >> nd & 1u)
      return op_error(call, StatusCode::kInvalidArgument, "dim ", d, " is listed twice");
    seen |= 1u << nd;
    p.dims[p.ndims++] = nd;
  }
  return ok_status();
}

// Output sizes, the normalization factor of `mode` (0 none, 1 1/sqrt(n), 2 1/n) and the
// scratch (the complex work buffer), once work_sizes hold the signal.
Status finish(const KernelCall& call, FftParams& p, int mode, PrepareInfo* info) {
  double n = 1;
  for (int k = 0; k < p.ndims; ++k) {
    const int64_t len = p.work_sizes[p.dims[k]];
    if (len < 1)
      return op_error(call, StatusCode::kInvalidArgument, "dim ", p.dims[k], " has ", len,
                      " points (an FFT needs at least one)");
    n *= double(len);
  }
  p.scale = mode == 0 ? 1.0 : mode == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
  p.out_sizes = p.work_sizes;
  const int last = p.dims[p.ndims - 1];
  if (p.kind == FftKind::kR2C) p.out_sizes[last] = p.work_sizes[last] / 2 + 1;
  p.work_numel = 1;
  for (int d = 0; d < p.rank; ++d) p.work_numel *= p.work_sizes[d];
  info->scratch_bytes = size_t(p.work_numel) * 2 * dtype_size(p.part);
  call.outputs[0].dtype = p.kind == FftKind::kC2R ? p.part : complex_dtype_of(p.part);
  call.outputs[0].set_shape(std::span<const int64_t>(p.out_sizes.data(), size_t(p.rank)));
  return ok_status();
}

Result<int> norm_int(const KernelCall& call) {
  TIR_ASSIGN_OR_RETURN(int64_t norm, int_arg(call, 2, "normalization"));
  if (norm < 0 || norm > 2)
    return op_error(call, StatusCode::kInvalidArgument, "normalization ", norm,
                    " is not 0 (none), 1 (1/sqrt(n)) or 2 (1/n)");
  return static_cast<int>(norm);
}

// torch.fft's norm string as ATen's mode for a transform in direction `forward`.
Result<int> norm_mode(const KernelCall& call, size_t idx, bool forward) {
  const Arg& a = call.args[idx];
  std::string_view s = a.is_none() ? "backward" : a.s;
  if (!a.is_none() && a.kind != ArgKind::kString)
    return op_error(call, StatusCode::kInvalidArgument, "argument 'norm' must be a string");
  if (s == "ortho") return 1;
  if (s == "backward") return forward ? 0 : 2;
  if (s == "forward") return forward ? 2 : 0;
  return op_error(call, StatusCode::kInvalidArgument, "norm '", s,
                  "' is not \"forward\", \"backward\" or \"ortho\"");
}

}  // namespace

Result<FftParams> fft_prepare_r2c(const KernelCall& call, PrepareInfo* info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(FftParams p, fft_input(call, FftKind::kR2C, false));
  TIR_ASSIGN_OR_RETURN(std::span<const int64_t> dims, ints_arg(call, 1, "dim"));
  TIR_RETURN_IF_ERROR(set_dims(call, p, dims));
  TIR_ASSIGN_OR_RETURN(int mode, norm_int(call));
  TIR_ASSIGN_OR_RETURN(bool onesided, bool_arg(call, 3, "onesided"));
  if (!onesided) p.kind = FftKind::kC2C;  // the full spectrum: a c2c of the real input
  p.forward = true;
  TIR_RETURN_IF_ERROR(finish(call, p, mode, info));
  return p;
}

Result<FftParams> fft_prepare_c2r(const KernelCall& call, PrepareInfo* info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(FftParams p, fft_input(call, FftKind::kC2R, false));
  TIR_ASSIGN_OR_RETURN(std::span<const int64_t> dims, ints_arg(call, 1, "dim"));
  TIR_RETURN_IF_ERROR(set_dims(call, p, dims));
  TIR_ASSIGN_OR_RETURN(int mode, norm_int(call));
  TIR_ASSIGN_OR_RETURN(int64_t last_size, int_arg(call, 3, "last_dim_size"));
  p.forward = false;
  p.work_sizes[p.dims[p.ndims - 1]] = last_size;
  TIR_RETURN_IF_ERROR(finish(call, p, mode, info));
  return p;
}

Result<FftParams> fft_prepare_c2c(const KernelCall& call, PrepareInfo* info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(FftParams p, fft_input(call, FftKind::kC2C, false));
  TIR_ASSIGN_OR_RETURN(std::span<const int64_t> dims, ints_arg(call, 1, "dim"));
  TIR_RETURN_IF_ERROR(set_dims(call, p, dims));
  TIR_ASSIGN_OR_RETURN(int mode, norm_int(call));
  TIR_ASSIGN_OR_RETURN(p.forward, bool_arg(call, 3, "forward"));
  TIR_RETURN_IF_ERROR(finish(call, p, mode, info));
  return p;
}

template <FftKind Kind, bool Forward, FftArgs Args>
Result<FftParams> fft_prepare_torch(const KernelCall& call, PrepareInfo* info) {
  TIR_RETURN_IF_ERROR(check_arity(call, 4, 1));
  TIR_ASSIGN_OR_RETURN(FftParams p, fft_input(call, Kind, true));
  p.forward = Forward;
  // Signal sizes (`n` or `s`, each -1 for "the input's") and dims, as torch.fft reads them.
  std::vector<int64_t> sizes, dims;
  const Arg& s = call.args[1];
  if (Args == FftArgs::k1D) {
    TIR_ASSIGN_OR_RETURN(int64_t d, int_arg(call, 2, "dim"));
    dims = {d};
    if (!s.is_none()) {
      TIR_ASSIGN_OR_RETURN(int64_t n, int_arg(call, 1, "n"));
      sizes = {n};
    }
  } else {
    TIR_ASSIGN_OR_RETURN(auto given_s, optional_ints_arg(call, 1, "s"));
    TIR_ASSIGN_OR_RETURN(auto given_dim, optional_ints_arg(call, 2, "dim"));
    if (given_s) sizes.assign(given_s->begin(), given_s->end());
    if (given_dim) {
      dims.assign(given_dim->begin(), given_dim->end());
    } else {  // fftn: the last len(s) dims, or every dim
      const int64_t k = given_s ? int64_t(sizes.size()) : p.rank;
      for (int64_t d = p.rank - k; d < p.rank; ++d) dims.push_back(d);
    }
    if (given_s && sizes.size() != dims.size())
      return op_error(call, StatusCode::kInvalidArgument, "'s' has ", sizes.size(), " sizes for ",
                      dims.size(), " dims");
  }
  TIR_RETURN_IF_ERROR(set_dims(call, p, dims));
  for (int k = 0; k < p.ndims; ++k) {
    const int d = p.dims[k];
    const bool last = k == p.ndims - 1;
    int64_t n = k < int(sizes.size()) ? sizes[size_t(k)] : -1;
    if (n == -1) n = Kind == FftKind::kC2R && last ? 2 * (p.in_sizes[d] - 1) : p.in_sizes[d];
    if (n < 1)
      return op_error(call, StatusCode::kInvalidArgument, "invalid number of data points (", n,
                      ") for dim ", d);
    p.work_sizes[d] = n;
  }
  TIR_ASSIGN_OR_RETURN(int mode, norm_mode(call, 3, Forward));
  TIR_RETURN_IF_ERROR(finish(call, p, mode, info));
  return p;
}

template Result<FftParams> fft_prepare_torch<FftKind::kC2C, true, FftArgs::k1D>(const KernelCall&,
                                                                                PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2C, false, FftArgs::k1D>(const KernelCall&,
                                                                                 PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kR2C, true, FftArgs::k1D>(const KernelCall&,
                                                                                PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2R, false, FftArgs::k1D>(const KernelCall&,
                                                                                 PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2C, true, FftArgs::k2D>(const KernelCall&,
                                                                                PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2C, false, FftArgs::k2D>(const KernelCall&,
                                                                                 PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kR2C, true, FftArgs::k2D>(const KernelCall&,
                                                                                PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2R, false, FftArgs::k2D>(const KernelCall&,
                                                                                 PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2C, true, FftArgs::kND>(const KernelCall&,
                                                                                PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2C, false, FftArgs::kND>(const KernelCall&,
                                                                                 PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kR2C, true, FftArgs::kND>(const KernelCall&,
                                                                                PrepareInfo*);
template Result<FftParams> fft_prepare_torch<FftKind::kC2R, false, FftArgs::kND>(const KernelCall&,
                                                                                 PrepareInfo*);

}  // namespace tir::kernels
