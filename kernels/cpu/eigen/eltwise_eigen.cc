// Optimized float32 broadcasting add/sub/mul/div on Eigen arrays. Binary ops walk the output row by
// row (last dim), so same-shape, scalar and row/column broadcasts all reduce to vectorised 1-D
// loops. mul.Tensor also takes channels-last operands and output (runtime/passes/layout.h): it then
// walks the output in memory order, so a squeeze-excitation scale [N, C, 1, 1] times a
// channels-last [N, C, H, W] is H*W rows of C products.
#include <Eigen/Core>

#include "kernels/cpu/eigen/eigen_util.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/register.h"
#include "kernels/reference/reference_kernels.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

using Arr = ArrF;
using CArr = CArrF;
constexpr int64_t kEltwiseGrain = 1 << 15;

// out[0:n] = a (op) alpha*b, where a/b advance by stride 0 (broadcast) or 1.
template <typename A, typename B>
void apply_row(BinaryKind op, float alpha, const A& a, const B& b, Arr out) {
  switch (op) {
    case BinaryKind::kAdd:
      out = a + alpha * b;
      break;
    case BinaryKind::kSub:
      out = a - alpha * b;
      break;
    case BinaryKind::kMul:
      out = a * b;
      break;
    case BinaryKind::kDiv:
      out = a / b;
      break;
    default:  // eltwise_prepare_binary takes add, sub, mul and div only
      break;
  }
}

void row(BinaryKind op, float alpha, const float* a, int64_t sa, const float* b, int64_t sb,
         float* out, int64_t n) {
  const Arr o(out, n);
  if (sa && sb) {
    apply_row(op, alpha, CArr(a, n), CArr(b, n), o);
  } else if (sa) {
    apply_row(op, alpha, CArr(a, n), Eigen::ArrayXf::Constant(n, *b), o);
  } else if (sb) {
    apply_row(op, alpha, Eigen::ArrayXf::Constant(n, *a), CArr(b, n), o);
  } else {
    apply_row(op, alpha, Eigen::ArrayXf::Constant(n, *a), Eigen::ArrayXf::Constant(n, *b), o);
  }
}

// As `row`, for any inner strides of a and b (a channels-last operand read in plain order).
void row_strided(BinaryKind op, float alpha, const float* a, int64_t sa, const float* b, int64_t sb,
                 float* out, int64_t n) {
  if ((sa == 0 || sa == 1) && (sb == 0 || sb == 1)) {
    row(op, alpha, a, sa, b, sb, out, n);
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    const float x = a[j * sa], y = b[j * sb];
    switch (op) {
      case BinaryKind::kAdd:
        out[j] = x + alpha * y;
        break;
      case BinaryKind::kSub:
        out[j] = x - alpha * y;
        break;
      case BinaryKind::kMul:
        out[j] = x * y;
        break;
      case BinaryKind::kDiv:
        out[j] = x / y;
        break;
      default:
        break;
    }
  }
}

// The plan with size-1 dims dropped and neighbours merged where both inputs step through
// them as one (a channel scale [1, C, 1, 1] times [1, C, H, W] becomes [C, H*W] with b's
// inner stride 0), so rows are as long as possible.
BroadcastPlan coalesce(const BroadcastPlan& in) {
  BroadcastPlan out;
  for (int d = 0; d < in.rank; ++d) {
    if (in.sizes[d] == 1) continue;
    const int k = out.rank - 1;
    if (k >= 0 && out.a_strides[k] == in.a_strides[d] * in.sizes[d] &&
        out.b_strides[k] == in.b_strides[d] * in.sizes[d]) {
      out.sizes[k] *= in.sizes[d];
      out.a_strides[k] = in.a_strides[d];
      out.b_strides[k] = in.b_strides[d];
      continue;
    }
    out.sizes[out.rank] = in.sizes[d];
    out.a_strides[out.rank] = in.a_strides[d];
    out.b_strides[out.rank] = in.b_strides[d];
    ++out.rank;
  }
  if (out.rank == 0) {
    out.rank = 1;
    out.sizes[0] = 1;
  }
  return out;
}

// out[i] = a[i] (op) alpha*b[i] over p.plan, rows in parallel (`sa`, `sb`: any inner strides).
void broadcast_rows(const BinaryParams& p, const BroadcastPlan& plan, const float* a,
                    const float* b, float* out) {
  const int64_t total = plan.numel();
  if (total == 0) return;
  const float alpha = static_cast<float>(p.alpha);
  const int last = plan.rank - 1;
  const int64_t inner = plan.sizes[last];
  const int64_t rows = total / inner;
  const int64_t sa = plan.a_strides[last], sb = plan.b_strides[last];
  parallel_chunks(rows, std::max<int64_t>(1, kEltwiseGrain / inner), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t a_off = 0, b_off = 0, rem = r;
      for (int d = last - 1; d >= 0; --d) {
        const int64_t i = rem % plan.sizes[d];
        rem /= plan.sizes[d];
        a_off += i * plan.a_strides[d];
        b_off += i * plan.b_strides[d];
      }
      row_strided(p.op, alpha, a + a_off, sa, b + b_off, sb, out + r * inner, inner);
    }
  });
}

// An operand or the output channels-last (float32): the plan walks the output in memory
// order with the operands' own strides (0 for numbers).
void binary_strided(const BinaryParams& p, const KernelCall& call) {
  float* out = call.outputs[0].data_as<float>();
  float av = static_cast<float>(p.a_value), bv = 0.f;
  const float* a = p.a_scalar ? &av : call.inputs[p.a_input].data_as<const float>();
  if (p.b_bool) {  // a mask: computed as the reference does, element by element
    const uint8_t* mask = call.inputs[p.b_input].data_as<const uint8_t>();
    broadcast_for_each(p.plan, [&](int64_t o, int64_t ia, int64_t ib) {
      const double x = a[ia], y = mask[ib] ? 1.0 : 0.0;
      double r = x * y;
      if (p.op == BinaryKind::kAdd) r = x + p.alpha * y;
      if (p.op == BinaryKind::kSub) r = x - p.alpha * y;
      if (p.op == BinaryKind::kDiv) r = x / y;
      out[o] = static_cast<float>(r);
    });
    return;
  }
  const float* b = &bv;
  if (p.b_scalar)
    bv = static_cast<float>(p.b_input >= 0 ? read_scalar_tensor(call.inputs[p.b_input], p.b_dtype)
                                           : p.b_value);
  else
    b = call.inputs[p.b_input].data_as<const float>();
  broadcast_rows(p, coalesce(p.plan), a, b, out);
}

void binary_opt(const BinaryParams& p, const KernelCall& call, void* scratch) {
  if (p.strided) {
    binary_strided(p, call);
    return;
  }
  if (p.dtype != DType::kFloat32 || p.a_scalar || p.b_bool) {  // rare forms: masks, rsub
    ref_binary(p, call, scratch);
    return;
  }
  const float* a = call.inputs[p.a_input].data_as<const float>();
  float* out = call.outputs[0].data_as<float>();
  const float alpha = static_cast<float>(p.alpha);
  const int64_t total = p.plan.numel();
  if (p.b_scalar || p.same_shape) {
    float bv = 0.f;
    const float* b = &bv;
    if (p.b_scalar) {
      bv = static_cast<float>(p.b_input >= 0 ? read_scalar_tensor(call.inputs[p.b_input], p.b_dtype)
                                             : p.b_value);
    } else {
      b = call.inputs[p.b_input].data_as<const float>();
    }
    const int64_t sb = p.b_scalar ? 0 : 1;
    parallel_chunks(total, kEltwiseGrain, [&](int64_t s, int64_t e) {
      row(p.op, alpha, a + s, 1, b + s * sb, sb, out + s, e - s);
    });
    return;
  }
  broadcast_rows(p, coalesce(p.plan), a, call.inputs[p.b_input].data_as<const float>(), out);
}

template <BinaryKind Op>
using BinaryOpt = FnKernel<BinaryParams, eltwise_prepare_binary<Op>, binary_opt>;

/// Reads self and other plain or channels-last (every shape: what the fast paths miss walks
/// strides).
template <BinaryKind Op>
using BinaryChannelsLastOpt =
    FnKernel<BinaryParams, eltwise_prepare_binary_channels_last<Op>, binary_opt>;

}  // namespace

void register_eltwise_eigen(KernelRegistry& registry) {
  registry.add({
      {"aten::add.Tensor", kCpu, kF32, kOpt, &make_kernel<BinaryOpt<BinaryKind::kAdd>>},
      {"aten::add_.Tensor", kCpu, kF32, kOpt, &make_kernel<BinaryOpt<BinaryKind::kAdd>>},
      {"aten::add.Scalar", kCpu, kF32, kOpt, &make_kernel<BinaryOpt<BinaryKind::kAdd>>},
      {"aten::sub.Tensor", kCpu, kF32, kOpt, &make_kernel<BinaryOpt<BinaryKind::kSub>>},
      {"aten::mul.Tensor", kCpu, kF32, kOpt, &make_kernel<BinaryChannelsLastOpt<BinaryKind::kMul>>},
      {"aten::mul_.Tensor", kCpu, kF32, kOpt, &make_kernel<BinaryOpt<BinaryKind::kMul>>},
      {"aten::mul.Scalar", kCpu, kF32, kOpt, &make_kernel<BinaryOpt<BinaryKind::kMul>>},
      {"aten::div.Tensor", kCpu, kF32, kOpt, &make_kernel<BinaryOpt<BinaryKind::kDiv>>},
  });
}
}  // namespace tir::kernels
