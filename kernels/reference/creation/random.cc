// Random tensors: aten::rand, randn ([0, 1) uniform in float16, bfloat16, float32 or float64;
// standard normal in float32 or float64),
// their _like forms and aten::randperm (int64 by default; int32, float32, float64 too), drawn
// from the session's seeded Philox stream (kernels/random.h documents the generator and each
// draw). Layout, device and pin_memory arguments are accepted and ignored, as for the other
// creation ops.
#include "kernels/random.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "core/float16.h"
#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

enum class Draw : uint8_t { kUniform, kNormal, kPermutation };

struct RandomParams {
  DType dtype = DType::kFloat32;
  int64_t numel = 0;
};

// rand/randn(size, *, dtype?, ...), their _like(self, *, dtype?, ...) forms, randperm(n, ...).
template <Draw D, bool Like>
Result<RandomParams> prepare_random(const KernelCall& call, PrepareInfo*) {
  TIR_RETURN_IF_ERROR(check_arity(call, Like ? 6 : 5, 1));
  RandomParams p;
  std::vector<int64_t> shape;
  DType self_dtype = DType::kUndefined;
  if constexpr (Like) {
    TIR_ASSIGN_OR_RETURN(const Tensor* x, tensor_arg(call, 0, "self"));
    shape.assign(x->shape().begin(), x->shape().end());
    self_dtype = x->dtype;
  } else if constexpr (D == Draw::kPermutation) {
    TIR_ASSIGN_OR_RETURN(const int64_t n, int_arg(call, 0, "n"));
    if (n < 0) return op_error(call, StatusCode::kInvalidArgument, "n must be >= 0, got ", n);
    shape = {n};
  } else {
    TIR_ASSIGN_OR_RETURN(auto size, ints_arg(call, 0, "size"));
    if (size.size() > size_t(kMaxRank) ||
        std::any_of(size.begin(), size.end(), [](int64_t s) { return s < 0; }))
      return op_error(call, StatusCode::kInvalidArgument, "size ", shape_str(size),
                      " must have at most ", kMaxRank, " non-negative dims");
    shape.assign(size.begin(), size.end());
  }
  TIR_ASSIGN_OR_RETURN(p.dtype, optional_dtype_arg(call, 1, "dtype"));
  if (p.dtype == DType::kUndefined)
    p.dtype = self_dtype != DType::kUndefined ? self_dtype
              : D == Draw::kPermutation       ? DType::kInt64
                                              : DType::kFloat32;
  const bool floating = p.dtype == DType::kFloat32 || p.dtype == DType::kFloat64;
  // Uniform draws in float16/bfloat16 come from that dtype's own grid: a float32 draw rounded
  // to 8 significant bits would give 1.0 (torch draws each dtype's digits).
  const bool half = p.dtype == DType::kFloat16 || p.dtype == DType::kBFloat16;
  const bool ok = D == Draw::kPermutation
                      ? floating || p.dtype == DType::kInt64 || p.dtype == DType::kInt32
                      : floating || (D == Draw::kUniform && half);
  if (!ok)
    return op_error(call, StatusCode::kUnsupported, "dtype ", dtype_name(p.dtype),
                    D == Draw::kPermutation ? " (int64, int32, float32 or float64 expected)"
                    : D == Draw::kUniform   ? " (float16, bfloat16, float32 or float64 expected)"
                                            : " (float32 or float64 expected)");
  call.outputs[0].dtype = p.dtype;
  call.outputs[0].set_shape(shape);
  p.numel = call.outputs[0].numel();
  return p;
}

RandomStream& stream_of(const KernelCall& call) {
  return call.random ? *call.random : default_random_stream();
}

constexpr double kTwoPow24 = 1.0 / 16777216.0;
double uniform(uint32_t x) { return double(x >> 8) * kTwoPow24; }  // [0, 1)

template <typename T>
void fill_uniform(const RandomStream& s, uint64_t first, T* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 4) {
    const std::array<uint32_t, 4> b = s.block(first + uint64_t(i / 4));
    for (int64_t k = 0; k < 4 && i + k < n; ++k) y[i + k] = static_cast<T>(uniform(b[k]));
  }
}

/// Uniform [0, 1) on the grid of a dtype with `digits` significant bits: (x >> (32 - digits))
/// * 2^-digits is exact in that dtype, so it never rounds up to 1.
void fill_uniform_half(const RandomStream& s, uint64_t first, uint16_t* y, int64_t n,
                       bool bfloat16) {
  const int digits = bfloat16 ? 8 : 11;
  for (int64_t i = 0; i < n; i += 4) {
    const std::array<uint32_t, 4> b = s.block(first + uint64_t(i / 4));
    for (int64_t k = 0; k < 4 && i + k < n; ++k) {
      const float u = std::ldexp(float(b[k] >> (32 - digits)), -digits);
      y[i + k] = bfloat16 ? float_to_bf16(u) : float_to_fp16(u);
    }
  }
}

template <typename T>
void fill_normal(const RandomStream& s, uint64_t first, T* y, int64_t n) {
  for (int64_t i = 0; i < n; i += 4) {
    const std::array<uint32_t, 4> b = s.block(first + uint64_t(i / 4));
    for (int64_t k = 0; k < 4 && i + k < n; k += 2) {
      const double r = std::sqrt(-2.0 * std::log(double((b[k] >> 8) + 1) * kTwoPow24));
      const double theta = 2.0 * std::numbers::pi * uniform(b[k + 1]);
      y[i + k] = static_cast<T>(r * std::cos(theta));
      if (i + k + 1 < n) y[i + k + 1] = static_cast<T>(r * std::sin(theta));
    }
  }
}

template <typename T>
void fill_permutation(const RandomStream& s, uint64_t first, T* y, int64_t n) {
  std::vector<int64_t> perm(size_t(std::max<int64_t>(n, 0)));
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t i = n - 1, draw = 0; i > 0; --i, ++draw) {
    const std::array<uint32_t, 4> b = s.block(first + uint64_t(draw / 2));
    const int lo = draw % 2 == 0 ? 0 : 2;
    const uint64_t v = uint64_t(b[lo]) | uint64_t(b[lo + 1]) << 32;
    const auto j =
        static_cast<int64_t>((static_cast<unsigned __int128>(v) * uint64_t(i + 1)) >> 64);
    std::swap(perm[i], perm[j]);
  }
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(perm[i]);
}

template <Draw D>
void ref_random(const RandomParams& p, const KernelCall& call, void*) {
  RandomStream& s = stream_of(call);
  const int64_t blocks =
      D == Draw::kPermutation ? (std::max<int64_t>(p.numel - 1, 0) + 1) / 2 : (p.numel + 3) / 4;
  const uint64_t first = s.reserve(call.node, uint64_t(blocks));
  if (p.dtype == DType::kFloat16 || p.dtype == DType::kBFloat16) {
    fill_uniform_half(s, first, call.outputs[0].data_as<uint16_t>(), p.numel,
                      p.dtype == DType::kBFloat16);
    return;
  }
  visit_dtype(p.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* y = call.outputs[0].data_as<T>();
    if constexpr (!std::is_same_v<T, bool>) {
      if constexpr (D == Draw::kPermutation) {
        fill_permutation(s, first, y, p.numel);
      } else if constexpr (std::is_floating_point_v<T>) {
        if constexpr (D == Draw::kUniform)
          fill_uniform(s, first, y, p.numel);
        else
          fill_normal(s, first, y, p.numel);
      }
    }
  });
}

template <Draw D, bool Like>
using RandomRef = FnKernel<RandomParams, prepare_random<D, Like>, ref_random<D>>;

}  // namespace

void register_random_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::rand", kCpu, kAny, kRef, &make_kernel<RandomRef<Draw::kUniform, false>>},
      {"aten::rand", kCpu, kF16, kRef, &make_kernel<RandomRef<Draw::kUniform, false>>},
      {"aten::rand", kCpu, kBF16, kRef, &make_kernel<RandomRef<Draw::kUniform, false>>},
      {"aten::rand_like", kCpu, kAny, kRef, &make_kernel<RandomRef<Draw::kUniform, true>>},
      {"aten::rand_like", kCpu, kF16, kRef, &make_kernel<RandomRef<Draw::kUniform, true>>},
      {"aten::rand_like", kCpu, kBF16, kRef, &make_kernel<RandomRef<Draw::kUniform, true>>},
      {"aten::randn", kCpu, kAny, kRef, &make_kernel<RandomRef<Draw::kNormal, false>>},
      {"aten::randn_like", kCpu, kAny, kRef, &make_kernel<RandomRef<Draw::kNormal, true>>},
      {"aten::randperm", kCpu, kAny, kRef, &make_kernel<RandomRef<Draw::kPermutation, false>>},
  });
}
}  // namespace tir::kernels
