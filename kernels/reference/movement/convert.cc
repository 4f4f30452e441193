// Reference dtype and device conversions (kernels/shapes/movement/convert.h).
#include "kernels/shapes/movement/convert.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

/// A float to an integer as torch computes it on x86 (cvtts*2si, whose "integer indefinite"
/// is the most negative value): NaN, infinities and values outside the 32-bit (for targets of
/// 32 bits or fewer) or 64-bit range become INT32_MIN / INT64_MIN, then narrow modulo 2^bits.
/// A plain C++ cast of such a value is undefined behaviour.
template <typename To, typename From>
To float_to_integer(From x) {
  const double v = static_cast<double>(x);
  if constexpr (sizeof(To) <= 4) {
    const bool fits = v > -2147483649.0 && v < 2147483648.0;  // NaN: false
    return static_cast<To>(fits ? static_cast<int32_t>(v) : std::numeric_limits<int32_t>::min());
  } else {
    const bool fits = v >= -9223372036854775808.0 && v < 9223372036854775808.0;
    return static_cast<To>(fits ? static_cast<int64_t>(v) : std::numeric_limits<int64_t>::min());
  }
}

template <typename T>
constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

/// One element of From as To, as torch casts: a float16/bfloat16 value is its float; a value
/// becomes float16/bfloat16 through float (c10::Half and c10::BFloat16 are made from float).
template <typename To, typename From>
To convert_one(From x) {
  if constexpr (kIsHalf<From>) {
    return convert_one<To>(x.to_float());
  } else if constexpr (kIsHalf<To>) {
    return To::from_float(std::is_same_v<From, bool> ? float(x) : static_cast<float>(x));
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != From{};
  } else if constexpr (std::is_integral_v<To> && !std::is_integral_v<From>) {
    return float_to_integer<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

template <typename From, typename To>
void convert_loop(const From* x, To* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = convert_one<To>(x[i]);
}

// A conversion to or from complex goes through the parts' dtype: a real value becomes the
// real part (imaginary 0), a complex one to a real dtype keeps its real part (as torch does,
// with its warning), complex64 <-> complex128 converts both parts.
void convert_complex(const ConvertParams& p, const void* x, void* y) {
  const int64_t in_step = dtype_is_complex(p.in) ? 2 : 1;
  const int64_t out_step = dtype_is_complex(p.out) ? 2 : 1;
  const int64_t parts = in_step == 2 && out_step == 2 ? 2 : 1;
  if (out_step == 2 && parts == 1) std::memset(y, 0, size_t(p.numel) * dtype_size(p.out));
  visit_any_dtype(complex_part_dtype(p.in), [&](auto from) {
    visit_any_dtype(complex_part_dtype(p.out), [&](auto to) {
      using F = decltype(from);
      using T = decltype(to);
      const F* xf = static_cast<const F*>(x);
      T* yt = static_cast<T*>(y);
      for (int64_t i = 0; i < p.numel; ++i)
        for (int64_t k = 0; k < parts; ++k)
          yt[i * out_step + k] = convert_one<T>(xf[i * in_step + k]);
    });
  });
}

void ref_convert(const ConvertParams& p, const KernelCall& call, void*) {
  if (p.alias) return;
  const void* x = call.inputs[p.input].data;
  void* y = call.outputs[0].data;
  if (p.in == p.out) {
    std::memcpy(y, x, static_cast<size_t>(p.numel) * dtype_size(p.in));
    return;
  }
  if (dtype_is_complex(p.in) || dtype_is_complex(p.out)) return convert_complex(p, x, y);
  visit_any_dtype(p.in, [&](auto from) {
    visit_any_dtype(p.out, [&](auto to) {
      using F = decltype(from);
      using T = decltype(to);
      convert_loop(static_cast<const F*>(x), static_cast<T*>(y), p.numel);
    });
  });
}

using ToCopyRef = FnKernel<ConvertParams, convert_prepare_to_copy, ref_convert>;
using ToDTypeRef = FnKernel<ConvertParams, convert_prepare_to_dtype, ref_convert>;
using ToLayoutRef = FnKernel<ConvertParams, convert_prepare_to_dtype_layout, ref_convert>;
using ToDeviceRef = FnKernel<ConvertParams, convert_prepare_to_device, ref_convert>;
using TypeAsRef = FnKernel<ConvertParams, convert_prepare_type_as, ref_convert>;
using LiftFreshCopyRef = FnKernel<ConvertParams, convert_prepare_lift_fresh_copy, ref_convert>;

}  // namespace

void register_convert_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::_to_copy", kCpu, kAny, kRef, &make_kernel<ToCopyRef>},
      {"aten::to.dtype", kCpu, kAny, kRef, &make_kernel<ToDTypeRef>},
      {"aten::to.dtype_layout", kCpu, kAny, kRef, &make_kernel<ToLayoutRef>},
      {"aten::to.device", kCpu, kAny, kRef, &make_kernel<ToDeviceRef>},
      {"aten::type_as", kCpu, kAny, kRef, &make_kernel<TypeAsRef>},
      {"aten::lift_fresh_copy", kCpu, kAny, kRef, &make_kernel<LiftFreshCopyRef>},
  });
}

}  // namespace tir::kernels
