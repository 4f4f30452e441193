// Reference FFT kernels over Eigen's FFT module (unsupported/Eigen/FFT, its kissfft back end:
// header-only, MPL2 like the rest of Eigen, any length through mixed radices with a generic
// butterfly for other primes). A multi-dim transform is a 1-D transform along each listed dim in
// turn on a complex work buffer (the scratch); r2c widens the real input first and keeps the
// onesided half at the end, c2r transforms the other dims first and then the last one from its
// Hermitian half (the imaginary parts of the DC and Nyquist terms drop out, as in pocketfft).
#include "kernels/shapes/spectral/fft.h"

#include <complex>
#include <cstring>
#include <unsupported/Eigen/FFT>
#include <vector>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

// Element strides of a contiguous tensor of `sizes`.
std::array<int64_t, kMaxRank> strides_of(const std::array<int64_t, kMaxRank>& sizes, int rank) {
  std::array<int64_t, kMaxRank> s{};
  int64_t v = 1;
  for (int d = rank - 1; d >= 0; --d) {
    s[d] = v;
    v *= sizes[d];
  }
  return s;
}

// One unscaled 1-D transform of n points (Eigen's kissfft has no plan for one point: its
// transform is the identity).
template <typename T>
void fft_1d(Eigen::FFT<T>& fft, std::complex<T>* out, const std::complex<T>* in, int64_t n,
            bool forward) {
  if (n == 1) {
    out[0] = in[0];
  } else if (forward) {
    fft.fwd(out, in, n);
  } else {
    fft.inv(out, in, n);
  }
}

// 1-D transforms of every line along dim `dim` of the contiguous complex buffer `buf`.
template <typename T>
void transform_dim(std::complex<T>* buf, const std::array<int64_t, kMaxRank>& sizes, int rank,
                   int dim, bool forward, Eigen::FFT<T>& fft) {
  using C = std::complex<T>;
  const auto strides = strides_of(sizes, rank);
  const int64_t n = sizes[dim], stride = strides[dim];
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= sizes[d];
  if (total == 0) return;
  const int64_t outer = total / (n * stride);
  std::vector<C> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < stride; ++i) {
      C* line = buf + o * n * stride + i;
      for (int64_t k = 0; k < n; ++k) in[size_t(k)] = line[k * stride];
      fft_1d(fft, out.data(), in.data(), n, forward);
      for (int64_t k = 0; k < n; ++k) line[k * stride] = out[size_t(k)];
    }
  }
}

// Copies the region of `from` (sizes `fs`) that fits `to` (sizes `ts`) into `to`, elementwise
// with `f(dst, src)`; both contiguous.
template <typename D, typename S, typename F>
void copy_region(D* to, const std::array<int64_t, kMaxRank>& ts, const S* from,
                 const std::array<int64_t, kMaxRank>& fs, int rank, F&& f) {
  std::array<int64_t, kMaxRank> common{};
  int64_t total = 1;
  for (int d = 0; d < rank; ++d) total *= (common[d] = std::min(ts[d], fs[d]));
  if (total == 0) return;
  const auto tstr = strides_of(ts, rank), fstr = strides_of(fs, rank);
  std::array<int64_t, kMaxRank> idx{};
  for (int64_t i = 0; i < total; ++i) {
    int64_t to_off = 0, from_off = 0;
    for (int d = 0; d < rank; ++d) {
      to_off += idx[d] * tstr[d];
      from_off += idx[d] * fstr[d];
    }
    f(to[to_off], from[from_off]);
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < common[d]) break;
      idx[d] = 0;
    }
  }
}

template <typename T>
void run_fft(const FftParams& p, const KernelCall& call, void* scratch) {
  using C = std::complex<T>;
  Eigen::FFT<T> fft;
  fft.SetFlag(Eigen::FFT<T>::Unscaled);
  C* work = static_cast<C*>(scratch);
  const int last = p.dims[p.ndims - 1];
  const T scale = static_cast<T>(p.scale);
  // The input, zero-padded or trimmed to the signal (kC2R: to the half spectrum of the last
  // dim, laid out densely at the start of the buffer), real inputs read as complex.
  std::array<int64_t, kMaxRank> load = p.work_sizes;
  const int64_t L = p.work_sizes[last];
  if (p.kind == FftKind::kC2R) load[last] = L / 2 + 1;
  std::fill(work, work + p.work_numel, C(0));
  if (p.input_complex) {
    copy_region(work, load, call.inputs[p.input].data_as<const C>(), p.in_sizes, p.rank,
                [](C& w, const C& v) { w = v; });
  } else {
    copy_region(work, load, call.inputs[p.input].data_as<const T>(), p.in_sizes, p.rank,
                [](C& w, const T& v) { w = C(v, T(0)); });
  }
  if (p.kind != FftKind::kC2R) {
    for (int k = 0; k < p.ndims; ++k)
      transform_dim(work, p.work_sizes, p.rank, p.dims[k], p.forward, fft);
    copy_region(call.outputs[0].data_as<C>(), p.out_sizes, work, p.work_sizes, p.rank,
                [&](C& y, const C& v) { y = v * scale; });
    return;
  }
  // kC2R: the other dims go back first; then each line of the last dim is extended to L points
  // by Hermitian symmetry and transformed into the output.
  for (int k = 0; k + 1 < p.ndims; ++k) transform_dim(work, load, p.rank, p.dims[k], false, fft);
  const auto hstr = strides_of(load, p.rank), ostr = strides_of(p.out_sizes, p.rank);
  int64_t lines = 1;
  for (int d = 0; d < p.rank; ++d)
    if (d != last) lines *= p.out_sizes[d];
  std::vector<C> full(static_cast<size_t>(L)), out(static_cast<size_t>(L));
  T* y = call.outputs[0].data_as<T>();
  const int64_t h = load[last];
  std::array<int64_t, kMaxRank> idx{};  // line `l`: the other dims in row-major order
  for (int64_t l = 0; l < lines; ++l) {
    int64_t hoff = 0, ooff = 0;
    for (int d = 0; d < p.rank; ++d) {
      hoff += idx[d] * hstr[d];
      ooff += idx[d] * ostr[d];
    }
    for (int64_t k = 0; k < L; ++k) {
      full[size_t(k)] =
          k < h ? work[hoff + k * hstr[last]] : std::conj(work[hoff + (L - k) * hstr[last]]);
    }
    fft_1d(fft, out.data(), full.data(), L, false);
    for (int64_t k = 0; k < L; ++k) y[ooff + k * ostr[last]] = out[size_t(k)].real() * scale;
    for (int d = p.rank - 1; d >= 0; --d) {
      if (d == last) continue;
      if (++idx[d] < p.out_sizes[d]) break;
      idx[d] = 0;
    }
  }
}

void ref_fft(const FftParams& p, const KernelCall& call, void* scratch) {
  if (p.part == DType::kFloat64) {
    run_fft<double>(p, call, scratch);
  } else {
    run_fft<float>(p, call, scratch);
  }
}

template <FftKind K, bool Forward, FftArgs A>
using TorchFft = FnKernel<FftParams, fft_prepare_torch<K, Forward, A>, ref_fft>;

// torch.fft's functions: name, kind, direction and argument form.
template <FftKind K, bool Forward, FftArgs A>
void add_torch_fft(KernelRegistry& registry, const char* op, std::initializer_list<DType> dtypes) {
  for (DType d : dtypes) registry.add({{op, kCpu, d, kRef, &make_kernel<TorchFft<K, Forward, A>>}});
}

}  // namespace

void register_fft_ref(KernelRegistry& registry) {
  using R2C = FnKernel<FftParams, fft_prepare_r2c, ref_fft>;
  using C2R = FnKernel<FftParams, fft_prepare_c2r, ref_fft>;
  using C2C = FnKernel<FftParams, fft_prepare_c2c, ref_fft>;
  registry.add({
      {"aten::_fft_r2c", kCpu, DType::kFloat32, kRef, &make_kernel<R2C>},
      {"aten::_fft_r2c", kCpu, DType::kFloat64, kRef, &make_kernel<R2C>},
      {"aten::_fft_c2r", kCpu, DType::kComplexFloat, kRef, &make_kernel<C2R>},
      {"aten::_fft_c2r", kCpu, DType::kComplexDouble, kRef, &make_kernel<C2R>},
      {"aten::_fft_c2c", kCpu, DType::kComplexFloat, kRef, &make_kernel<C2C>},
      {"aten::_fft_c2c", kCpu, DType::kComplexDouble, kRef, &make_kernel<C2C>},
  });
  const std::initializer_list<DType> kReal = {DType::kFloat32, DType::kFloat64};
  const std::initializer_list<DType> kCplx = {DType::kComplexFloat, DType::kComplexDouble};
  const std::initializer_list<DType> kBoth = {DType::kFloat32, DType::kFloat64,
                                              DType::kComplexFloat, DType::kComplexDouble};
  using K = FftKind;
  using A = FftArgs;
  add_torch_fft<K::kC2C, true, A::k1D>(registry, "aten::fft_fft", kBoth);
  add_torch_fft<K::kC2C, false, A::k1D>(registry, "aten::fft_ifft", kBoth);
  add_torch_fft<K::kR2C, true, A::k1D>(registry, "aten::fft_rfft", kReal);
  add_torch_fft<K::kC2R, false, A::k1D>(registry, "aten::fft_irfft", kCplx);
  add_torch_fft<K::kC2C, true, A::k2D>(registry, "aten::fft_fft2", kBoth);
  add_torch_fft<K::kC2C, false, A::k2D>(registry, "aten::fft_ifft2", kBoth);
  add_torch_fft<K::kR2C, true, A::k2D>(registry, "aten::fft_rfft2", kReal);
  add_torch_fft<K::kC2R, false, A::k2D>(registry, "aten::fft_irfft2", kCplx);
  add_torch_fft<K::kC2C, true, A::kND>(registry, "aten::fft_fftn", kBoth);
  add_torch_fft<K::kC2C, false, A::kND>(registry, "aten::fft_ifftn", kBoth);
  add_torch_fft<K::kR2C, true, A::kND>(registry, "aten::fft_rfftn", kReal);
  add_torch_fft<K::kC2R, false, A::kND>(registry, "aten::fft_irfftn", kCplx);
}

}  // namespace tir::kernels
