// The random ops (aten::rand, randn, randperm and the _like forms) and their generator
// (kernels/random.h): Philox4x32-10 against Random123's published known-answer vectors, the
// draws by distribution (range, mean and variance within 5 standard errors, a
// Kolmogorov-Smirnov distance below the 1% critical value), permutations by validity,
// reproducibility per seed, and rejected arguments.
#include "kernels/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "tests/common/moments.h"
#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

TEST(Random, PhiloxKnownAnswers) {  // Random123 tests/kat_vectors, philox4x32 10 rounds
  using A4 = std::array<uint32_t, 4>;
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
            (A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

RunResult draw(const std::string& op, int64_t n, RandomStream* stream,
               DType dtype = DType::kUndefined) {
  CallBuilder cb(op);
  op == "aten::randperm" ? cb.i(n) : cb.ints({n});
  dtype == DType::kUndefined ? cb.none() : cb.dtype(dtype);
  cb.none().none().none();
  return run_kernel(cb, {.random = stream});
}

// Largest |empirical CDF - cdf| over the sorted sample.
double ks_distance(std::vector<double> x, double (*cdf)(double)) {
  std::sort(x.begin(), x.end());
  const double n = double(x.size());
  double d = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  return d;
}

std::vector<double> values(const Buffer& b) {
  std::vector<double> v;
  for (float x : b.span<float>()) v.push_back(x);
  return v;
}

using ::tir::testing::expect_moments;

constexpr int64_t kN = 100000;
const double kKsCritical = 1.63 / std::sqrt(double(kN));  // alpha = 0.01

TEST(Random, RandIsUniformOnZeroOne) {
  RandomStream stream(7);
  RunResult r = draw("aten::rand", kN, &stream);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  ASSERT_EQ(r.outputs[0].tensor().dtype, DType::kFloat32);
  const std::vector<double> v = values(r.outputs[0]);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return x >= 0 && x < 1; }));
  expect_moments(v, 0.5, 1.0 / 12);
  EXPECT_LT(ks_distance(v, [](double x) { return x; }), kKsCritical);
}

TEST(Random, RandnIsStandardNormal) {
  RandomStream stream(8);
  RunResult r = draw("aten::randn", kN + 1, &stream);  // odd: the last pair half used
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  const std::vector<double> v = values(r.outputs[0]);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); }));
  expect_moments(v, 0.0, 1.0);
  EXPECT_LT(ks_distance(v, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }),
            kKsCritical);
}

TEST(Random, RandpermIsAPermutationAndUnbiased) {
  RandomStream stream(9);
  for (int64_t n : {0, 1, 2, 17, 1000}) {
    RunResult r = draw("aten::randperm", n, &stream);
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    ASSERT_EQ(r.outputs[0].tensor().dtype, DType::kInt64);
    std::vector<int64_t> p(r.outputs[0].span<int64_t>().begin(),
                           r.outputs[0].span<int64_t>().end());
    ASSERT_EQ(int64_t(p.size()), n);
    std::sort(p.begin(), p.end());
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(p[i], i);
  }
  // Where element 0 lands, over 6000 permutations of 6: uniform (chi-square, 5 dof, 1%: 15.09).
  std::array<int, 6> at{};
  for (int t = 0; t < 6000; ++t) {
    RunResult r = draw("aten::randperm", 6, &stream);
    const auto s = r.outputs[0].span<int64_t>();
    ++at[std::find(s.begin(), s.end(), 0) - s.begin()];
  }
  double chi2 = 0;
  for (int c : at) chi2 += (c - 1000.0) * (c - 1000.0) / 1000.0;
  EXPECT_LT(chi2, 15.09);
}

TEST(Random, SameSeedSameValuesAndRunsAdvance) {
  RandomStream a(42), b(42), c(43);
  const RunResult a1 = draw("aten::randn", 64, &a), a2 = draw("aten::randn", 64, &a);
  const RunResult b1 = draw("aten::randn", 64, &b), c1 = draw("aten::randn", 64, &c);
  EXPECT_TRUE(all_close(a1.outputs[0], b1.outputs[0], 0, 0));
  EXPECT_FALSE(all_close(a1.outputs[0], a2.outputs[0], 0, 0));
  EXPECT_FALSE(all_close(a1.outputs[0], c1.outputs[0], 0, 0));
}

TEST(Random, LikeFormsAndDtypes) {
  RandomStream stream(3);
  CallBuilder like("aten::rand_like");
  like.tensor(Buffer::f32({2, 3, 4})).none().none().none().none().none();
  RunResult r = run_kernel(like, {.random = &stream});
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].shape(), (std::vector<int64_t>{2, 3, 4}));
  r = draw("aten::randn", 10, &stream, DType::kFloat64);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kFloat64);
  r = draw("aten::randperm", 10, &stream, DType::kInt32);
  ASSERT_TRUE(r.status.ok()) << r.status.message();
  EXPECT_EQ(r.outputs[0].tensor().dtype, DType::kInt32);
}

TEST(Random, RejectsBadArguments) {
  RandomStream stream(1);
  RunResult r = draw("aten::randperm", -1, &stream);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status.message().find("aten::randperm"), std::string::npos) << r.status.message();
  r = draw("aten::rand", 4, &stream, DType::kInt64);
  EXPECT_EQ(r.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status.message().find("int64"), std::string::npos) << r.status.message();
  r = draw("aten::randn", -2, &stream);
  EXPECT_EQ(r.status.code(), StatusCode::kInvalidArgument) << r.status.message();
}

}  // namespace
}  // namespace tir::kernels::testing
