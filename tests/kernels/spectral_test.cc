// The FFT, stft/istft and complex kernels (kernels/reference/spectral, kernels/reference/complex)
// against a naive O(n^2) DFT written here in double (an oracle independent of Eigen), at odd,
// prime and composite lengths with every normalization; the complex element-wise formulas;
// and the refusals: bad dims, norms and shapes, and the registry keeping complex tensors away
// from any-dtype kernels that would read them as real numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "kernels/ops/catalogue.h"
#include "tests/kernels/kernel_harness.h"

namespace tir::kernels {
namespace {

using testing::Buffer;
using testing::CallBuilder;
using testing::run_kernel;
using C = std::complex<double>;

Buffer complex64(std::vector<int64_t> shape, std::mt19937& rng) {
  Buffer b(DType::kComplexFloat, std::move(shape));
  std::normal_distribution<float> d;
  for (auto& z : b.span<std::complex<float>>()) z = {d(rng), d(rng)};
  return b;
}

Buffer real32(std::vector<int64_t> shape, std::mt19937& rng) {
  Buffer b = Buffer::f32(std::move(shape));
  std::normal_distribution<float> d;
  for (float& x : b.span<float>()) x = d(rng);
  return b;
}

// The naive DFT of `x` (length n): sign -1 forward, +1 backward, unscaled.
std::vector<C> dft(const std::vector<C>& x, bool forward) {
  const size_t n = x.size();
  std::vector<C> y(n);
  for (size_t k = 0; k < n; ++k)
    for (size_t t = 0; t < n; ++t)
      y[k] += x[t] * std::polar(1.0, (forward ? -2.0 : 2.0) * M_PI * double(k * t % n) / double(n));
  return y;
}

std::complex<float> cat(const Buffer& b, int64_t i) { return b.at<std::complex<float>>(i); }

void expect_near(std::complex<float> got, C want, double tol, const std::string& where) {
  EXPECT_NEAR(got.real(), want.real(), tol) << where;
  EXPECT_NEAR(got.imag(), want.imag(), tol) << where;
}

class FftLengths : public ::testing::TestWithParam<int64_t> {};

// c2c along dim 1 of [2, n], both directions and every norm mode, against the DFT.
TEST_P(FftLengths, C2cMatchesTheDft) {
  const int64_t n = GetParam();
  std::mt19937 rng(testing::test_seed() + uint32_t(n));
  const Buffer x = complex64({2, n}, rng);
  for (bool forward : {true, false}) {
    for (int64_t norm : {0, 1, 2}) {
      auto r = run_kernel(CallBuilder("aten::_fft_c2c").tensor(x).ints({1}).i(norm).b(forward));
      ASSERT_TRUE(r.status.ok()) << r.status.message();
      const double scale = norm == 0 ? 1 : norm == 1 ? 1 / std::sqrt(double(n)) : 1 / double(n);
      for (int64_t row = 0; row < 2; ++row) {
        std::vector<C> line(static_cast<size_t>(n), C{});
        for (int64_t k = 0; k < n; ++k) line[size_t(k)] = C(cat(x, row * n + k));
        const std::vector<C> want = dft(line, forward);
        for (int64_t k = 0; k < n; ++k)
          expect_near(cat(r.outputs[0], row * n + k), want[size_t(k)] * scale, 1e-4 * n,
                      "n " + std::to_string(n) + " k " + std::to_string(k));
      }
    }
  }
}

// r2c keeps n/2+1 points; c2r of that half returns the signal (odd and even n).
TEST_P(FftLengths, R2cThenC2rRoundTrips) {
  const int64_t n = GetParam();
  std::mt19937 rng(testing::test_seed() + 7 * uint32_t(n));
  const Buffer x = real32({3, n}, rng);
  auto half = run_kernel(CallBuilder("aten::_fft_r2c").tensor(x).ints({-1}).i(0).b(true));
  ASSERT_TRUE(half.status.ok()) << half.status.message();
  ASSERT_EQ(half.outputs[0].shape(), (std::vector<int64_t>{3, n / 2 + 1}));
  std::vector<C> line(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) line[size_t(k)] = x.at<float>(k);
  const std::vector<C> want = dft(line, true);
  for (int64_t k = 0; k <= n / 2; ++k)
    expect_near(cat(half.outputs[0], k), want[size_t(k)], 1e-4 * n, "r2c k " + std::to_string(k));
  auto back = run_kernel(CallBuilder("aten::_fft_c2r").tensor(half.outputs[0]).ints({1}).i(2).i(n));
  ASSERT_TRUE(back.status.ok()) << back.status.message();
  ASSERT_EQ(back.outputs[0].shape(), x.shape());
  for (int64_t i = 0; i < 3 * n; ++i)
    EXPECT_NEAR(back.outputs[0].at<float>(i), x.at<float>(i), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Lengths, FftLengths, ::testing::Values(1, 2, 5, 7, 12, 13, 64, 97, 400));

// A 2-D transform equals 1-D transforms along each dim in turn (torch.fft.fft2 vs fft(fft)).
TEST(Fft, TwoDimsEqualTwoPasses) {
  std::mt19937 rng(testing::test_seed());
  const Buffer x = complex64({3, 4, 5}, rng);
  auto both = run_kernel(CallBuilder("aten::_fft_c2c").tensor(x).ints({2, 0}).i(0).b(true));
  auto a = run_kernel(CallBuilder("aten::_fft_c2c").tensor(x).ints({2}).i(0).b(true));
  ASSERT_TRUE(both.status.ok() && a.status.ok());
  auto b = run_kernel(CallBuilder("aten::_fft_c2c").tensor(a.outputs[0]).ints({0}).i(0).b(true));
  ASSERT_TRUE(b.status.ok());
  for (int64_t i = 0; i < 60; ++i)
    expect_near(cat(both.outputs[0], i), C(cat(b.outputs[0], i)), 1e-4, "");
}

// torch.fft.rfft(x, n) trims or zero-pads to n points; irfft's default n is 2 * (m - 1).
TEST(Fft, TorchFftPadsTrimsAndNormalizes) {
  std::mt19937 rng(testing::test_seed());
  const Buffer x = real32({6}, rng);
  auto trimmed = run_kernel(CallBuilder("aten::fft_rfft").tensor(x).i(4).i(-1).str("forward"));
  ASSERT_TRUE(trimmed.status.ok()) << trimmed.status.message();
  ASSERT_EQ(trimmed.outputs[0].shape(), (std::vector<int64_t>{3}));
  std::vector<C> line(4);
  for (int k = 0; k < 4; ++k) line[size_t(k)] = x.at<float>(k);
  auto want = dft(line, true);
  for (int k = 0; k < 3; ++k)
    expect_near(cat(trimmed.outputs[0], k), want[size_t(k)] / 4.0, 1e-5, "trim");
  auto padded = run_kernel(CallBuilder("aten::fft_fft").tensor(x).i(9).i(0).str("ortho"));
  ASSERT_TRUE(padded.status.ok()) << padded.status.message();
  std::vector<C> longer(9);
  for (int k = 0; k < 6; ++k) longer[size_t(k)] = x.at<float>(k);
  want = dft(longer, true);
  for (int k = 0; k < 9; ++k)
    expect_near(cat(padded.outputs[0], k), want[size_t(k)] / 3.0, 1e-5, "pad");
  auto irfft =
      run_kernel(CallBuilder("aten::fft_irfft").tensor(trimmed.outputs[0]).none().i(0).none());
  ASSERT_TRUE(irfft.status.ok()) << irfft.status.message();
  EXPECT_EQ(irfft.outputs[0].shape(), (std::vector<int64_t>{4}));
}

TEST(Fft, BadArgumentsAreRefusedByName) {
  std::mt19937 rng(testing::test_seed());
  const Buffer z = complex64({2, 3}, rng);
  const Buffer x = real32({2, 3}, rng);
  auto dup = run_kernel(CallBuilder("aten::_fft_c2c").tensor(z).ints({1, -1}).i(0).b(true));
  EXPECT_NE(dup.status.message().find("listed twice"), std::string::npos) << dup.status.message();
  auto norm = run_kernel(CallBuilder("aten::_fft_c2c").tensor(z).ints({1}).i(3).b(true));
  EXPECT_NE(norm.status.message().find("normalization 3"), std::string::npos);
  auto range = run_kernel(CallBuilder("aten::_fft_c2c").tensor(z).ints({2}).i(0).b(true));
  EXPECT_FALSE(range.status.ok());
  auto real_in = run_kernel(CallBuilder("aten::_fft_c2r").tensor(x).ints({1}).i(0).i(4));
  EXPECT_EQ(real_in.status.code(), StatusCode::kNotFound);  // no float32 kernel is listed
  auto bad_norm = run_kernel(CallBuilder("aten::fft_fft").tensor(x).none().i(-1).str("half"));
  EXPECT_NE(bad_norm.status.message().find("norm 'half'"), std::string::npos);
  auto zero = run_kernel(CallBuilder("aten::fft_fft").tensor(x).i(0).i(-1).none());
  EXPECT_NE(zero.status.message().find("invalid number of data points"), std::string::npos);
  const Buffer empty(DType::kComplexFloat, {2, 0});
  auto none = run_kernel(CallBuilder("aten::_fft_c2c").tensor(empty).ints({1}).i(0).b(true));
  EXPECT_NE(none.status.message().find("at least one"), std::string::npos);
}

// stft of a signal, then istft, returns the signal (hann window, center, a length).
TEST(Stft, IstftInvertsStft) {
  std::mt19937 rng(testing::test_seed());
  const Buffer x = real32({2, 50}, rng);
  testing::RunResult w;  // torch.hann_window(16): periodic
  w.outputs.push_back(Buffer::f32({16}));
  for (int k = 0; k < 16; ++k)
    w.outputs[0].span<float>()[size_t(k)] = float(0.5 - 0.5 * std::cos(2 * M_PI * k / 16));
  auto spec = run_kernel(CallBuilder("aten::stft.center")
                             .tensor(x)
                             .i(16)
                             .i(4)
                             .none()
                             .tensor(w.outputs[0])
                             .b(true)
                             .str("reflect")
                             .b(false)
                             .none()
                             .b(true)
                             .none());
  ASSERT_TRUE(spec.status.ok()) << spec.status.message();
  ASSERT_EQ(spec.outputs[0].shape(), (std::vector<int64_t>{2, 9, 13}));
  auto back = run_kernel(CallBuilder("aten::istft")
                             .tensor(spec.outputs[0])
                             .i(16)
                             .i(4)
                             .none()
                             .tensor(w.outputs[0])
                             .b(true)
                             .b(false)
                             .none()
                             .i(50)
                             .b(false));
  ASSERT_TRUE(back.status.ok()) << back.status.message();
  ASSERT_EQ(back.outputs[0].shape(), x.shape());
  for (int64_t i = 0; i < 100; ++i) EXPECT_NEAR(back.outputs[0].at<float>(i), x.at<float>(i), 1e-5);
  // A zero window leaves the envelope empty: refused at run time, as ATen refuses it.
  const Buffer zeros = Buffer::f32({16});
  auto bad = run_kernel(CallBuilder("aten::istft")
                            .tensor(spec.outputs[0])
                            .i(16)
                            .i(4)
                            .none()
                            .tensor(zeros)
                            .b(true)
                            .b(false)
                            .none()
                            .i(50)
                            .b(false));
  EXPECT_NE(bad.status.message().find("window overlap add min"), std::string::npos);
  auto short_sig = run_kernel(CallBuilder("aten::stft")
                                  .tensor(real32({10}, rng))
                                  .i(16)
                                  .i(4)
                                  .none()
                                  .none()
                                  .b(false)
                                  .none()
                                  .b(true)
                                  .none());
  EXPECT_NE(short_sig.status.message().find("shorter than n_fft"), std::string::npos);
  auto real_out = run_kernel(
      CallBuilder("aten::stft").tensor(x).i(16).i(4).none().none().b(false).none().b(false).none());
  EXPECT_NE(real_out.status.message().find("return_complex=True"), std::string::npos);
}

TEST(Complex, ElementwiseFormulas) {
  std::mt19937 rng(testing::test_seed());
  const Buffer a = complex64({2, 3}, rng), b = complex64({3}, rng);
  auto mul = run_kernel(CallBuilder("aten::mul.Tensor").tensor(a).tensor(b));
  auto div = run_kernel(CallBuilder("aten::div.Tensor").tensor(a).tensor(b));
  auto sub = run_kernel(CallBuilder("aten::sub.Tensor").tensor(a).tensor(b).f(2.0));
  auto abs = run_kernel(CallBuilder("aten::abs").tensor(a));
  auto ang = run_kernel(CallBuilder("aten::angle").tensor(a));
  auto conj = run_kernel(CallBuilder("aten::_conj").tensor(a));
  for (auto* r : {&mul, &div, &sub, &abs, &ang, &conj})
    ASSERT_TRUE(r->status.ok()) << r->status.message();
  EXPECT_EQ(abs.outputs[0].tensor().dtype, DType::kFloat32);
  for (int64_t i = 0; i < 6; ++i) {
    const C x(cat(a, i)), y(cat(b, i % 3));
    expect_near(cat(mul.outputs[0], i), x * y, 1e-5, "mul");
    expect_near(cat(div.outputs[0], i), x / y, 1e-4, "div");
    expect_near(cat(sub.outputs[0], i), x - 2.0 * y, 1e-5, "sub");
    expect_near(cat(conj.outputs[0], i), std::conj(x), 0, "conj");
    EXPECT_NEAR(abs.outputs[0].at<float>(i), std::abs(x), 1e-5);
    EXPECT_NEAR(ang.outputs[0].at<float>(i), std::arg(x), 1e-6);
  }
  const Buffer mag = Buffer::f32({2}, {2.f, 3.f}), phase = Buffer::f32({2}, {0.5f, -1.f});
  auto polar = run_kernel(CallBuilder("aten::polar").tensor(mag).tensor(phase));
  ASSERT_TRUE(polar.status.ok());
  expect_near(cat(polar.outputs[0], 1), std::polar(3.0, -1.0), 1e-6, "polar");
  auto real = run_kernel(CallBuilder("aten::view_as_real").tensor(a));
  ASSERT_EQ(real.outputs[0].shape(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(real.outputs[0].at<float>(3), cat(a, 1).imag());
  auto back = run_kernel(CallBuilder("aten::view_as_complex").tensor(real.outputs[0]));
  ASSERT_TRUE(back.status.ok());
  EXPECT_EQ(cat(back.outputs[0], 5), cat(a, 5));
  auto odd = run_kernel(CallBuilder("aten::view_as_complex").tensor(Buffer::f32({2, 3})));
  EXPECT_NE(odd.status.message().find("last dim of 2"), std::string::npos);
}

// An any-dtype kernel reads values as the real dtypes it knows: the registry never hands it a
// complex tensor unless the op's row says its kernels only move elements (all_dtypes).
TEST(Complex, RegistryKeepsComplexFromAnyDtypeKernels) {
  const KernelRegistry& reg = KernelRegistry::global();
  for (const char* op : {"aten::exp2", "aten::log10", "aten::sign", "aten::addcmul"}) {
    EXPECT_NE(reg.find(op, DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference), nullptr)
        << op;
    EXPECT_EQ(reg.find(op, DeviceType::kCpu, DType::kComplexFloat, KernelImpl::kReference), nullptr)
        << op;
  }
  for (const char* op : {"aten::permute", "aten::slice.Tensor", "aten::unfold", "aten::cat"})
    EXPECT_NE(reg.find(op, DeviceType::kCpu, DType::kComplexDouble, KernelImpl::kReference),
              nullptr)
        << op;
}

// Movement kernels take 16-byte elements (complex128) too.
TEST(Complex, PermuteAndUnfoldMoveComplex128) {
  Buffer z(DType::kComplexDouble, {2, 5});
  auto* v = z.span<std::complex<double>>().data();
  for (int i = 0; i < 10; ++i) v[i] = {double(i), -double(i)};
  auto t = run_kernel(CallBuilder("aten::permute").tensor(z).ints({1, 0}));
  ASSERT_TRUE(t.status.ok()) << t.status.message();
  EXPECT_EQ(t.outputs[0].at<std::complex<double>>(1), v[5]);
  auto u = run_kernel(CallBuilder("aten::unfold").tensor(z).i(1).i(3).i(2));
  ASSERT_TRUE(u.status.ok()) << u.status.message();
  ASSERT_EQ(u.outputs[0].shape(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(u.outputs[0].at<std::complex<double>>(4), v[3]);  // [0, 1, 1]: element 2 + 1
  EXPECT_EQ(u.outputs[0].at<std::complex<double>>(11), v[9]);
}

}  // namespace
}  // namespace tir::kernels
