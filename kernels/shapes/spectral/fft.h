// Shared shape inference for the FFTs: ATen's primitives _fft_r2c (real to complex, forward,
// optionally onesided along the last transformed dim), _fft_c2r (onesided complex to real,
// backward, `last_dim_size` points) and _fft_c2c (either direction), each over a list of dims
// with a normalization mode (0 none, 1 1/sqrt(n), 2 1/n; n the product of the signal sizes);
// and the torch.fft functions the training IR keeps (fft_fft, fft_ifft, fft_rfft, fft_irfft and
// their 2-D and N-D forms: an optional signal size per dim that zero-pads or trims the input,
// and a norm string, "backward" by default).
#pragma once

#include <array>
#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

/// kR2C: real input, forward, the last dim keeps n/2+1 points. kC2R: a half spectrum in, n
/// real points out along the last dim, backward. kC2C: complex (or real, read as complex) in,
/// complex out.
enum class FftKind : uint8_t { kR2C, kC2R, kC2C };

struct FftParams {
  FftKind kind = FftKind::kC2C;
  DType part = DType::kFloat32;  // float32 or float64: the output's (part) dtype
  bool input_complex = true;
  int input = -1;
  int rank = 0;
  std::array<int64_t, kMaxRank> in_sizes{};
  /// The signal on the transformed dims (zero-padded or trimmed input); kC2R: its full length
  /// along the last transformed dim, of which the input gives the first n/2+1 points.
  std::array<int64_t, kMaxRank> work_sizes{};
  std::array<int64_t, kMaxRank> out_sizes{};
  int ndims = 0;
  std::array<int, kMaxRank> dims{};  // transformed dims in the order given; the last is special
  bool forward = true;
  double scale = 1.0;  // the normalization factor
  int64_t work_numel = 0;
};

Result<FftParams> fft_prepare_r2c(const KernelCall& call, PrepareInfo* info);
Result<FftParams> fft_prepare_c2r(const KernelCall& call, PrepareInfo* info);
Result<FftParams> fft_prepare_c2c(const KernelCall& call, PrepareInfo* info);

/// How a torch.fft function names its signal sizes and dims: fft_fft (n, dim), fft_fft2
/// (s, dim = [-2, -1]), fft_fftn (s, dim, both optional).
enum class FftArgs : uint8_t { k1D, k2D, kND };

/// fft_fft / fft_ifft / fft_rfft / fft_irfft and their 2-D and N-D forms.
template <FftKind Kind, bool Forward, FftArgs Args>
Result<FftParams> fft_prepare_torch(const KernelCall& call, PrepareInfo* info);

}  // namespace tir::kernels
