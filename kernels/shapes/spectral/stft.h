// Shared shape inference for the short-time Fourier transforms the training IR keeps (the core
// IR decomposes them into unfold, _fft_r2c / _fft_c2r and overlap-add) and for hann_window:
// stft (center padding done by the program before it, as torch.stft does) and stft.center
// (reflect or constant center padding in the op), each onesided for a real signal and window,
// returning complex [batch?, n_fft/2+1, frames]; istft, its inverse with overlap-add and the
// window envelope division, returning the real signal.
#pragma once

#include <cstdint>

#include "kernels/kernel.h"

namespace tir::kernels {

struct StftParams {
  DType part = DType::kFloat32;  // float32 or float64
  int input = -1;
  int window = -1;  // -1: a rectangular window (ones) of win_length
  int64_t batch = 1;
  int64_t length = 0;  // samples per signal (stft input; istft output)
  int64_t n_fft = 0;
  int64_t hop = 0;
  int64_t win_length = 0;
  int64_t win_offset = 0;  // a shorter window sits centred in n_fft: (n_fft - win_length) / 2
  int64_t frames = 0;
  int64_t freqs = 0;  // n_fft / 2 + 1
  int64_t pad = 0;    // center padding on each side
  bool reflect = true;
  bool normalized = false;
  // istft: the overlap-added signal's full length and where the output starts in it.
  int64_t full_length = 0;
  int64_t start = 0;
};

Result<StftParams> stft_prepare(const KernelCall& call, PrepareInfo* info);
Result<StftParams> stft_prepare_center(const KernelCall& call, PrepareInfo* info);
Result<StftParams> istft_prepare(const KernelCall& call, PrepareInfo* info);

/// hann_window(window_length[, periodic], dtype, ...): float32 (default) or float64.
struct WindowParams {
  DType dtype = DType::kFloat32;
  int64_t length = 0;
  bool periodic = true;
};
Result<WindowParams> hann_window_prepare(const KernelCall& call, PrepareInfo* info);
Result<WindowParams> hann_window_prepare_periodic(const KernelCall& call, PrepareInfo* info);

}  // namespace tir::kernels
