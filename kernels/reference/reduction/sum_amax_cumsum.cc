// Reference sum.dim_IntList, amax, cumsum, cumprod, logcumsumexp and cummax/cummin. Floats
// accumulate in double, integers and bools in int64 (with int64 wrap-around, as ATen).
#include "kernels/reference/reduction/sum_amax_cumsum.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/log_add_exp.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"
#include "kernels/shapes/dtype_util.h"

namespace tir::kernels {
namespace {

// Accumulator type for an output type: double for floats, uint64 (wrapping) for ints.
template <typename T>
using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;

}  // namespace

void ref_sum(const ReduceCastParams& p, const KernelCall& call, void*) {
  visit_dtype(p.in, [&](auto in_tag) {
    visit_dtype(p.out, [&](auto out_tag) {
      using In = decltype(in_tag);
      using Out = decltype(out_tag);
      if constexpr (!std::is_same_v<Out, bool>) {
        const In* x = call.inputs[p.r.input].data_as<const In>();
        Out* y = call.outputs[0].data_as<Out>();
        Acc<Out> acc{};
        for_each_reduced(
            p.r, [&](int64_t off) { acc += static_cast<Acc<Out>>(static_cast<Out>(x[off])); },
            [&](int64_t o) {
              y[o] = static_cast<Out>(acc);
              acc = Acc<Out>{};
            });
      }
    });
  });
}

void ref_amax(const ReduceCastParams& p, const KernelCall& call, void*) {
  visit_dtype(p.in, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* x = call.inputs[p.r.input].data_as<const T>();
      T* y = call.outputs[0].data_as<T>();
      bool first = true;
      T best{};
      for_each_reduced(
          p.r,
          [&](int64_t off) {
            const T v = x[off];
            if constexpr (std::is_floating_point_v<T>) {
              if (first || std::isnan(v) || (v > best && !std::isnan(best))) best = v;  // NaN wins
            } else if (first || v > best) {
              best = v;
            }
            first = false;
          },
          [&](int64_t o) {
            y[o] = best;
            first = true;
          });
    }
  });
}

template <typename A>
A scan_log_start() {
  if constexpr (std::is_floating_point_v<A>) return -std::numeric_limits<A>::infinity();
  return A{};
}

/// log_add_exp in the accumulator's type (logcumsumexp is floating point only: integer
/// accumulators never reach it).
template <typename A>
A scan_log_add(A a, A b) {
  if constexpr (std::is_floating_point_v<A>) return static_cast<A>(log_add_exp(a, b));
  return a + b;
}

// cummax / cummin: the running extremum and where it was last reached; a NaN sticks.
template <typename T>
void cumulative_extremum(const CumsumParams& p, const KernelCall& call) {
  const T* x = call.inputs[p.input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  int64_t* idx = call.outputs[1].data_as<int64_t>();
  for (int64_t o = 0; o < p.outer; ++o)
    for (int64_t i = 0; i < p.inner; ++i) {
      T best{};
      int64_t at_best = 0;
      for (int64_t k = 0; k < p.n; ++k) {
        const int64_t at = (o * p.n + k) * p.inner + i;
        const T v = x[at];
        bool take = k == 0;
        if constexpr (std::is_floating_point_v<T>) {
          take = take || std::isnan(v) ||
                 (!std::isnan(best) && (p.scan == Scan::kMax ? v >= best : v <= best));
        } else {
          take = take || (p.scan == Scan::kMax ? v >= best : v <= best);
        }
        if (take) {
          best = v;
          at_best = k;
        }
        y[at] = best;
        idx[at] = at_best;
      }
    }
}

void ref_cumsum(const CumsumParams& p, const KernelCall& call, void*) {
  if (p.scan == Scan::kMax || p.scan == Scan::kMin) {
    visit_dtype(p.in, [&](auto tag) { cumulative_extremum<decltype(tag)>(p, call); });
    return;
  }
  visit_dtype(p.in, [&](auto in_tag) {
    visit_dtype(p.out, [&](auto out_tag) {
      using In = decltype(in_tag);
      using Out = decltype(out_tag);
      if constexpr (!std::is_same_v<Out, bool>) {
        const In* x = call.inputs[p.input].data_as<const In>();
        Out* y = call.outputs[0].data_as<Out>();
        for (int64_t o = 0; o < p.outer; ++o) {
          for (int64_t i = 0; i < p.inner; ++i) {
            Acc<Out> acc = p.scan == Scan::kProd        ? Acc<Out>{1}
                           : p.scan == Scan::kLogsumexp ? scan_log_start<Acc<Out>>()
                                                        : Acc<Out>{};
            for (int64_t k = 0; k < p.n; ++k) {
              const int64_t at = (o * p.n + k) * p.inner + i;
              const auto v = static_cast<Acc<Out>>(static_cast<Out>(x[at]));
              acc = p.scan == Scan::kProd        ? acc * v
                    : p.scan == Scan::kLogsumexp ? scan_log_add(acc, v)
                                                 : acc + v;
              y[at] = static_cast<Out>(acc);
            }
          }
        }
      }
    });
  });
}

namespace {

using SumRef = FnKernel<ReduceCastParams, sum_prepare, ref_sum>;
using CumsumRef = FnKernel<CumsumParams, cumsum_prepare, ref_cumsum>;
using CumprodRef = FnKernel<CumsumParams, cumprod_prepare, ref_cumsum>;
using LogcumsumexpRef = FnKernel<CumsumParams, logcumsumexp_prepare, ref_cumsum>;
template <Scan S>
using CumExtremumRef = FnKernel<CumsumParams, cumulative_extremum_prepare<S>, ref_cumsum>;

}  // namespace

void register_sum_amax_cumsum_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::sum.dim_IntList", kCpu, DType::kUndefined, kRef, &make_kernel<SumRef>},
      {"aten::cumsum", kCpu, DType::kUndefined, kRef, &make_kernel<CumsumRef>},
      {"aten::cumprod", kCpu, DType::kUndefined, kRef, &make_kernel<CumprodRef>},
      {"aten::logcumsumexp", kCpu, DType::kUndefined, kRef, &make_kernel<LogcumsumexpRef>},
      {"aten::cummax", kCpu, DType::kUndefined, kRef, &make_kernel<CumExtremumRef<Scan::kMax>>},
      {"aten::cummin", kCpu, DType::kUndefined, kRef, &make_kernel<CumExtremumRef<Scan::kMin>>},
  });
}
}  // namespace tir::kernels
