// Reference reductions (kernels/shapes/reduction/reduction.h). One pass over the input in
// memory order accumulates into per-output slots in scratch (two 8-byte slots per output);
// float inputs accumulate in double, integers in int64 with wrap-around. NaN wins max/min
// and its index wins argmax/argmin, as in ATen.
#include "kernels/shapes/reduction/reduction.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels/kernel_util.h"
#include "kernels/reference/reduction/sum_amax_cumsum.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

// Calls f(input_index, output_index, position_in_reduced_set) in input memory order.
template <typename F>
void for_each_element(const ReductionParams& p, F&& f) {
  int64_t total = 1;
  for (int d = 0; d < p.rank; ++d) total *= p.sizes[d];
  std::array<int64_t, kMaxRank> idx{};
  int64_t out = 0, red = 0;
  for (int64_t i = 0; i < total; ++i) {
    f(i, out, red);
    for (int d = p.rank - 1; d >= 0; --d) {
      out += p.out_strides[d];
      red += p.red_strides[d];
      if (++idx[d] < p.sizes[d]) break;
      out -= p.out_strides[d] * p.sizes[d];
      red -= p.red_strides[d] * p.sizes[d];
      idx[d] = 0;
    }
  }
}

template <typename T>
void write(const Tensor& t, int64_t i, T v) {
  visit_dtype(t.dtype, [&](auto tag) {
    using O = decltype(tag);
    static_cast<O*>(t.data)[i] = static_cast<O>(v);
  });
}

// amin/amax, argmax/argmin and max.dim/min.dim: the extremum in a, its position in b.
template <typename T, typename Acc>
void reduce_extremum(const ReductionParams& p, const KernelCall& call, const T* x, Acc* a,
                     int64_t* b) {
  const Tensor& y = call.outputs[0];
  const int64_t n = p.out_numel;
  const bool want_max =
      p.op == ReduceKind::kAmax || p.op == ReduceKind::kArgmax || p.op == ReduceKind::kMaxDim;
  for (int64_t o = 0; o < n; ++o) b[o] = -1;
  for_each_element(p, [&](int64_t i, int64_t o, int64_t r) {
    const Acc v = static_cast<Acc>(x[i]);
    if (b[o] < 0) {
      a[o] = v;
      b[o] = r;
      return;
    }
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a[o])) return;
      if (std::isnan(v)) {
        a[o] = v;
        b[o] = r;
        return;
      }
    }
    if (want_max ? v > a[o] : v < a[o]) {
      a[o] = v;
      b[o] = r;
    }
  });
  if (p.op == ReduceKind::kArgmax || p.op == ReduceKind::kArgmin) {
    for (int64_t o = 0; o < n; ++o) write<int64_t>(y, o, b[o]);
    return;
  }
  for (int64_t o = 0; o < n; ++o) write<Acc>(y, o, a[o]);
  if (p.op == ReduceKind::kMaxDim || p.op == ReduceKind::kMinDim)
    for (int64_t o = 0; o < n; ++o) call.outputs[1].data_as<int64_t>()[o] = b[o];
}

// any/all: the running truth value in b.
template <typename T>
void reduce_any_all(const ReductionParams& p, const KernelCall& call, const T* x, int64_t* b) {
  const Tensor& y = call.outputs[0];
  const int64_t n = p.out_numel;
  const bool all = p.op == ReduceKind::kAll;
  for (int64_t o = 0; o < n; ++o) b[o] = all ? 1 : 0;
  for_each_element(p, [&](int64_t i, int64_t o, int64_t) {
    const bool v = x[i] != T{};
    b[o] = all ? (b[o] && v) : (b[o] || v);
  });
  for (int64_t o = 0; o < n; ++o) write<bool>(y, o, b[o] != 0);
}

// sum/prod: into a as double for a float output, else into b as int64 with wrap-around.
template <typename T, typename Acc>
void reduce_sum_prod(const ReductionParams& p, const KernelCall& call, const T* x, Acc* a,
                     int64_t* b) {
  const Tensor& y = call.outputs[0];
  const int64_t n = p.out_numel;
  const bool prod = p.op == ReduceKind::kProd;
  if (dtype_is_float(p.out)) {
    double* acc = reinterpret_cast<double*>(a);
    for (int64_t o = 0; o < n; ++o) acc[o] = prod ? 1.0 : 0.0;
    for_each_element(p, [&](int64_t i, int64_t o, int64_t) {
      const double v = static_cast<double>(x[i]);
      acc[o] = prod ? acc[o] * v : acc[o] + v;
    });
    for (int64_t o = 0; o < n; ++o) write<double>(y, o, acc[o]);
    return;
  }
  for (int64_t o = 0; o < n; ++o) b[o] = prod ? 1 : 0;
  for_each_element(p, [&](int64_t i, int64_t o, int64_t) {
    const auto v = static_cast<uint64_t>(static_cast<int64_t>(x[i]));
    b[o] = static_cast<int64_t>(prod ? static_cast<uint64_t>(b[o]) * v
                                     : static_cast<uint64_t>(b[o]) + v);
  });
  for (int64_t o = 0; o < n; ++o) write<int64_t>(y, o, b[o]);
}

// mean/var/std: the mean in a (one pass), then the squared deviations in b (a second pass).
template <typename T, typename Acc>
void reduce_moments(const ReductionParams& p, const KernelCall& call, const T* x, Acc* a,
                    int64_t* b) {
  const Tensor& y = call.outputs[0];
  const int64_t n = p.out_numel;
  double* sum = reinterpret_cast<double*>(a);
  double* m2 = reinterpret_cast<double*>(b);
  for (int64_t o = 0; o < n; ++o) sum[o] = m2[o] = 0.0;
  for_each_element(p, [&](int64_t i, int64_t o, int64_t) { sum[o] += double(x[i]); });
  const double count = static_cast<double>(p.group);
  for (int64_t o = 0; o < n; ++o) sum[o] /= count;
  if (p.op == ReduceKind::kMean) {
    for (int64_t o = 0; o < n; ++o) write<double>(y, o, sum[o]);
    return;
  }
  for_each_element(p, [&](int64_t i, int64_t o, int64_t) {
    const double d = double(x[i]) - sum[o];
    m2[o] += d * d;
  });
  const double dof = std::max(0.0, count - p.correction);
  for (int64_t o = 0; o < n; ++o) {
    const double v = m2[o] / dof;
    write<double>(y, o, p.op == ReduceKind::kStd ? std::sqrt(v) : v);
  }
  if (call.outputs.size() > 1)  // var_mean / std_mean
    for (int64_t o = 0; o < n; ++o) write<double>(call.outputs[1], o, sum[o]);
}

// linalg_vector_norm and logsumexp, in double: a running max (|x| or x) in a, then a sum in b.
template <typename T, typename Acc>
void reduce_norm(const ReductionParams& p, const KernelCall& call, const T* x, Acc* a, int64_t* b) {
  const Tensor& y = call.outputs[0];
  const int64_t n = p.out_numel;
  double* top = reinterpret_cast<double*>(a);
  double* sum = reinterpret_cast<double*>(b);
  const bool lse = p.op == ReduceKind::kLogsumexp;
  const bool low = !lse && std::isinf(p.ord) && p.ord < 0;
  for (int64_t o = 0; o < n; ++o) {
    top[o] = low ? INFINITY : -INFINITY;
    sum[o] = 0.0;
  }
  for_each_element(p, [&](int64_t i, int64_t o, int64_t) {
    const double v = lse ? double(x[i]) : std::abs(double(x[i]));
    if (std::isnan(v) || (low ? v < top[o] : v > top[o])) top[o] = v;
  });
  if (!lse && std::isinf(p.ord)) {
    for (int64_t o = 0; o < n; ++o) write<double>(y, o, p.group == 0 ? 0.0 : top[o]);
    return;
  }
  for_each_element(p, [&](int64_t i, int64_t o, int64_t) {
    const double v = double(x[i]);
    if (lse) {
      sum[o] += std::isinf(top[o]) ? std::exp(v) : std::exp(v - top[o]);
    } else if (p.ord == 0) {
      sum[o] += v != 0;
    } else if (top[o] > 0 && !std::isinf(top[o])) {  // scaled by the largest |x|: no overflow
      sum[o] += std::pow(std::abs(v) / top[o], p.ord);
    }
  });
  for (int64_t o = 0; o < n; ++o) {
    double r;
    if (lse) {
      r = std::isinf(top[o]) ? std::log(sum[o]) : top[o] + std::log(sum[o]);
    } else if (p.ord == 0) {
      r = sum[o];
    } else {
      // an infinite |x| makes the norm infinite (inf / inf would be NaN)
      r = top[o] > 0 && !std::isinf(top[o]) ? top[o] * std::pow(sum[o], 1.0 / p.ord) : top[o];
    }
    write<double>(y, o, r);
  }
}

template <typename T>
void run_typed(const ReductionParams& p, const KernelCall& call, void* scratch) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const T* x = call.inputs[p.input].data_as<const T>();
  Acc* a = static_cast<Acc*>(scratch);
  int64_t* b = static_cast<int64_t*>(scratch) + p.out_numel;
  switch (p.op) {
    case ReduceKind::kAmin:
    case ReduceKind::kAmax:
    case ReduceKind::kArgmax:
    case ReduceKind::kArgmin:
    case ReduceKind::kMaxDim:
    case ReduceKind::kMinDim:
      reduce_extremum(p, call, x, a, b);
      return;
    case ReduceKind::kAny:
    case ReduceKind::kAll:
      reduce_any_all(p, call, x, b);
      return;
    case ReduceKind::kProd:
    case ReduceKind::kSum:
      reduce_sum_prod(p, call, x, a, b);
      return;
    case ReduceKind::kMean:
    case ReduceKind::kVar:
    case ReduceKind::kStd:
      reduce_moments(p, call, x, a, b);
      return;
    case ReduceKind::kNorm:
    case ReduceKind::kLogsumexp:
      reduce_norm(p, call, x, a, b);
      return;
  }
}

void ref_reduction(const ReductionParams& p, const KernelCall& call, void* scratch) {
  visit_dtype(p.in, [&](auto tag) { run_typed<decltype(tag)>(p, call, scratch); });
}

// aminmax: the min into outputs[0], then the same reduction as a max into outputs[1].
void ref_aminmax(const ReductionParams& p, const KernelCall& call, void* scratch) {
  KernelCall part = call;
  part.outputs = call.outputs.subspan(0, 1);
  ref_reduction(p, part, scratch);
  ReductionParams max = p;
  max.op = ReduceKind::kAmax;
  part.outputs = call.outputs.subspan(1, 1);
  ref_reduction(max, part, scratch);
}

using AminmaxRef = FnKernel<ReductionParams, reduction_prepare_aminmax, ref_aminmax>;
template <bool List>
using CountNonzeroRef =
    FnKernel<ReductionParams, reduction_prepare_count_nonzero<List>, ref_reduction>;
template <ReduceKind Op>
using DimsRef = FnKernel<ReductionParams, reduction_prepare_dims<Op>, ref_reduction>;
template <ReduceKind Op>
using OneDimRef = FnKernel<ReductionParams, reduction_prepare_one_dim<Op>, ref_reduction>;
template <ReduceKind Op>
using FullRef = FnKernel<ReductionParams, reduction_prepare_full<Op>, ref_reduction>;
template <ReduceKind Op, bool C>
using VarRef = FnKernel<ReductionParams, reduction_prepare_var<Op, C>, ref_reduction>;
template <ReduceKind Op, bool C>
using VarMeanRef = FnKernel<ReductionParams, reduction_prepare_var_mean<Op, C>, ref_reduction>;
using NormRef = FnKernel<ReductionParams, reduction_prepare_norm, ref_reduction>;
using LogsumexpRef = FnKernel<ReductionParams, reduction_prepare_logsumexp, ref_reduction>;

}  // namespace

void register_reduction_ref(KernelRegistry& registry) {
  registry.add({
      {"aten::amax", kCpu, DType::kFloat32, kRef, &make_kernel<AmaxRef>},
      {"aten::amax", kCpu, DType::kInt64, kRef, &make_kernel<AmaxRef>},
      {"aten::amin", kCpu, kAny, kRef, &make_kernel<DimsRef<ReduceKind::kAmin>>},
      {"aten::amax", kCpu, DType::kInt32, kRef, &make_kernel<DimsRef<ReduceKind::kAmax>>},
      {"aten::amax", kCpu, DType::kBool, kRef, &make_kernel<DimsRef<ReduceKind::kAmax>>},
      {"aten::amax", kCpu, DType::kFloat64, kRef, &make_kernel<DimsRef<ReduceKind::kAmax>>},
      {"aten::any.dims", kCpu, kAny, kRef, &make_kernel<DimsRef<ReduceKind::kAny>>},
      {"aten::all.dims", kCpu, kAny, kRef, &make_kernel<DimsRef<ReduceKind::kAll>>},
      {"aten::argmax", kCpu, kAny, kRef, &make_kernel<OneDimRef<ReduceKind::kArgmax>>},
      {"aten::argmin", kCpu, kAny, kRef, &make_kernel<OneDimRef<ReduceKind::kArgmin>>},
      {"aten::max.dim", kCpu, kAny, kRef, &make_kernel<OneDimRef<ReduceKind::kMaxDim>>},
      {"aten::min.dim", kCpu, kAny, kRef, &make_kernel<OneDimRef<ReduceKind::kMinDim>>},
      {"aten::prod.dim_int", kCpu, kAny, kRef, &make_kernel<OneDimRef<ReduceKind::kProd>>},
      {"aten::all.dim", kCpu, kAny, kRef, &make_kernel<OneDimRef<ReduceKind::kAll>>},
      {"aten::max", kCpu, kAny, kRef, &make_kernel<FullRef<ReduceKind::kMaxDim>>},
      {"aten::min", kCpu, kAny, kRef, &make_kernel<FullRef<ReduceKind::kMinDim>>},
      {"aten::prod", kCpu, kAny, kRef, &make_kernel<FullRef<ReduceKind::kProd>>},
      {"aten::mean", kCpu, kAny, kRef, &make_kernel<FullRef<ReduceKind::kMean>>},
      {"aten::sum", kCpu, kAny, kRef, &make_kernel<FullRef<ReduceKind::kSum>>},
      {"aten::any", kCpu, kAny, kRef, &make_kernel<FullRef<ReduceKind::kAny>>},
      {"aten::all", kCpu, kAny, kRef, &make_kernel<FullRef<ReduceKind::kAll>>},
      {"aten::var.correction", kCpu, kAny, kRef, &make_kernel<VarRef<ReduceKind::kVar, true>>},
      {"aten::var.dim", kCpu, kAny, kRef, &make_kernel<VarRef<ReduceKind::kVar, false>>},
      {"aten::std.correction", kCpu, kAny, kRef, &make_kernel<VarRef<ReduceKind::kStd, true>>},
      {"aten::std.dim", kCpu, kAny, kRef, &make_kernel<VarRef<ReduceKind::kStd, false>>},
      {"aten::aminmax", kCpu, kAny, kRef, &make_kernel<AminmaxRef>},
      {"aten::count_nonzero", kCpu, kAny, kRef, &make_kernel<CountNonzeroRef<false>>},
      {"aten::count_nonzero.dim_IntList", kCpu, kAny, kRef, &make_kernel<CountNonzeroRef<true>>},
      {"aten::var_mean.correction", kCpu, kAny, kRef,
       &make_kernel<VarMeanRef<ReduceKind::kVar, true>>},
      {"aten::var_mean.dim", kCpu, kAny, kRef, &make_kernel<VarMeanRef<ReduceKind::kVar, false>>},
      {"aten::std_mean.correction", kCpu, kAny, kRef,
       &make_kernel<VarMeanRef<ReduceKind::kStd, true>>},
      {"aten::std_mean.dim", kCpu, kAny, kRef, &make_kernel<VarMeanRef<ReduceKind::kStd, false>>},
      {"aten::linalg_vector_norm", kCpu, kAny, kRef, &make_kernel<NormRef>},
      {"aten::logsumexp", kCpu, kAny, kRef, &make_kernel<LogsumexpRef>},
  });
}
}  // namespace tir::kernels
