// Reference short-time Fourier transforms and the Hann window over Eigen's FFT module (see
// fft.cc): stft windows each frame of the (center-padded) signal and keeps the onesided
// spectrum; istft inverts each frame from its Hermitian half, windows it, overlap-adds and
// divides by the summed squared window, as ATen's istft does (and refuses, as ATen does, a
// window whose envelope vanishes somewhere in the output).
#include "kernels/shapes/spectral/stft.h"

#include <cmath>
#include <complex>
#include <unsupported/Eigen/FFT>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

// Window value k of n_fft (zero outside the centred win_length points; ones without a window).
template <typename T>
T window_at(const StftParams& p, const KernelCall& call, int64_t k) {
  const int64_t w = k - p.win_offset;
  if (w < 0 || w >= p.win_length) return T(0);
  return p.window < 0 ? T(1) : call.inputs[p.window].data_as<const T>()[w];
}

// Sample `s` of a signal of `n` samples, center-padded (reflect or zeros).
template <typename T>
T padded_sample(const T* x, int64_t n, int64_t s, bool reflect) {
  if (s >= 0 && s < n) return x[s];
  if (!reflect) return T(0);
  return x[s < 0 ? -s : 2 * (n - 1) - s];  // pad < n was checked
}

template <typename T>
void stft(const StftParams& p, const KernelCall& call, void* scratch) {
  using C = std::complex<T>;
  Eigen::FFT<T> fft;
  C* in = static_cast<C*>(scratch);
  C* out = in + p.n_fft;
  const T norm = p.normalized ? T(1) / std::sqrt(T(p.n_fft)) : T(1);
  C* y = call.outputs[0].data_as<C>();
  for (int64_t b = 0; b < p.batch; ++b) {
    const T* x = call.inputs[p.input].data_as<const T>() + b * p.length;
    for (int64_t t = 0; t < p.frames; ++t) {
      for (int64_t k = 0; k < p.n_fft; ++k) {
        const T v = padded_sample(x, p.length, t * p.hop + k - p.pad, p.reflect);
        in[k] = C(v * window_at<T>(p, call, k), T(0));
      }
      if (p.n_fft == 1) {
        out[0] = in[0];  // kissfft has no plan for one point
      } else {
        fft.fwd(out, in, p.n_fft);
      }
      for (int64_t f = 0; f < p.freqs; ++f) y[(b * p.freqs + f) * p.frames + t] = out[f] * norm;
    }
  }
}

template <typename T>
Status istft(const StftParams& p, const KernelCall& call, void* scratch) {
  using C = std::complex<T>;
  Eigen::FFT<T> fft;
  fft.SetFlag(Eigen::FFT<T>::Unscaled);
  T* sum = static_cast<T*>(scratch);
  T* env = sum + p.full_length;
  C* full = reinterpret_cast<C*>(env + p.full_length);
  C* out = full + p.n_fft;
  // ATen scales the spectrum by sqrt(n_fft) when normalized, then irfft divides by n_fft.
  const T scale = (p.normalized ? std::sqrt(T(p.n_fft)) : T(1)) / T(p.n_fft);
  for (int64_t i = 0; i < p.full_length; ++i) env[i] = T(0);
  for (int64_t t = 0; t < p.frames; ++t)
    for (int64_t k = 0; k < p.n_fft; ++k) {
      const T w = window_at<T>(p, call, k);
      env[t * p.hop + k] += w * w;
    }
  const int64_t end = std::min(p.start + p.length, p.full_length);
  for (int64_t i = p.start; i < end; ++i)
    if (std::abs(env[i]) < T(1e-11))
      return op_error(call, StatusCode::kInvalidArgument,
                      "window overlap add min: the summed squared window is below 1e-11 at "
                      "sample ",
                      i, " (choose a window and hop_length that cover every sample)");
  T* y = call.outputs[0].data_as<T>();
  for (int64_t b = 0; b < p.batch; ++b) {
    const C* x = call.inputs[p.input].data_as<const C>() + b * p.freqs * p.frames;
    for (int64_t i = 0; i < p.full_length; ++i) sum[i] = T(0);
    for (int64_t t = 0; t < p.frames; ++t) {
      for (int64_t k = 0; k < p.n_fft; ++k)
        full[k] = k < p.freqs ? x[k * p.frames + t] : std::conj(x[(p.n_fft - k) * p.frames + t]);
      if (p.n_fft == 1) {
        out[0] = full[0];
      } else {
        fft.inv(out, full, p.n_fft);
      }
      for (int64_t k = 0; k < p.n_fft; ++k)
        sum[t * p.hop + k] += out[k].real() * scale * window_at<T>(p, call, k);
    }
    for (int64_t i = 0; i < p.length; ++i) {
      const int64_t s = p.start + i;
      y[b * p.length + i] = s < p.full_length ? sum[s] / env[s] : T(0);
    }
  }
  return ok_status();
}

void ref_stft(const StftParams& p, const KernelCall& call, void* scratch) {
  p.part == DType::kFloat64 ? stft<double>(p, call, scratch) : stft<float>(p, call, scratch);
}

Status ref_istft(const StftParams& p, const KernelCall& call, void* scratch) {
  return p.part == DType::kFloat64 ? istft<double>(p, call, scratch)
                                   : istft<float>(p, call, scratch);
}

template <typename T>
void hann(const WindowParams& p, T* y) {
  // torch: a length-1 window is [1]; periodic windows are the first n of an n+1-point one.
  if (p.length == 1) {
    y[0] = T(1);
    return;
  }
  const double n = double(p.periodic ? p.length : p.length - 1);
  for (int64_t i = 0; i < p.length; ++i) y[i] = T(0.5 - 0.5 * std::cos(2.0 * M_PI * double(i) / n));
}

void ref_hann_window(const WindowParams& p, const KernelCall& call, void*) {
  if (p.dtype == DType::kFloat64) {
    hann(p, call.outputs[0].data_as<double>());
  } else {
    hann(p, call.outputs[0].data_as<float>());
  }
}

}  // namespace

void register_stft_ref(KernelRegistry& registry) {
  using Stft = FnKernel<StftParams, stft_prepare, ref_stft>;
  using StftCenter = FnKernel<StftParams, stft_prepare_center, ref_stft>;
  using Istft = CheckedScratchKernel<StftParams, istft_prepare, ref_istft>;
  using Hann = FnKernel<WindowParams, hann_window_prepare, ref_hann_window>;
  using HannPeriodic = FnKernel<WindowParams, hann_window_prepare_periodic, ref_hann_window>;
  for (DType d : {DType::kFloat32, DType::kFloat64})
    registry.add({
        {"aten::stft", kCpu, d, kRef, &make_kernel<Stft>},
        {"aten::stft.center", kCpu, d, kRef, &make_kernel<StftCenter>},
    });
  for (DType d : {DType::kComplexFloat, DType::kComplexDouble})
    registry.add({{"aten::istft", kCpu, d, kRef, &make_kernel<Istft>}});
  // No tensor input: the registry keys the window by its output dtype.
  for (DType d : {DType::kFloat32, DType::kFloat64})
    registry.add({
        {"aten::hann_window", kCpu, d, kRef, &make_kernel<Hann>},
        {"aten::hann_window.periodic", kCpu, d, kRef, &make_kernel<HannPeriodic>},
    });
}

}  // namespace tir::kernels
