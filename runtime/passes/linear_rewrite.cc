#include "runtime/passes/linear_rewrite.h"

#include "runtime/passes/node_match.h"

namespace tir {
namespace {

using kernels::ArgKind;

/// A float dtype a GEMM computes in: float32, or float16/bfloat16 (computed in float32 by
/// runtime/passes/narrow_dtypes.h, which reads the weight as stored once it is a linear).
bool gemm_dtype(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat16 || d == DType::kBFloat16;
}

/// W when `v` is permute(W, [1, 0]) of a float rank-2 weight (gemm_dtype); else -1.
int32_t transposed_weight(const ExecGraph& g, const DefUse& du, int32_t v) {
  const int32_t p = v >= 0 ? du.producer[size_t(v)] : -1;
  if (p < 0) return -1;
  const ExecNode& perm = g.nodes[size_t(p)];
  if (perm.op != "aten::permute" || perm.args.size() < 2 ||
      perm.args[1].ints != std::vector<int64_t>{1, 0})
    return -1;
  const int32_t w = tensor_at(perm, 0);
  if (!is_fixed(g, w) || !gemm_dtype(g.values[size_t(w)].dtype) ||
      declared_rank(g.values[size_t(w)]) != 2)
    return -1;
  return w;
}

/// Rewrites node i into linear when it matches; false otherwise.
bool rewrite_linear(ExecGraph& g, DefUse& du, int32_t i) {
  ExecNode& n = g.nodes[size_t(i)];
  const bool addmm = n.op == "aten::addmm";
  if (!addmm && n.op != "aten::mm") return false;
  const int32_t x = tensor_at(n, addmm ? 1 : 0);
  const int32_t w = transposed_weight(g, du, tensor_at(n, addmm ? 2 : 1));
  if (x < 0 || w < 0 || g.values[size_t(x)].dtype != g.values[size_t(w)].dtype) return false;
  int32_t bias = -1;
  if (addmm) {
    bias = tensor_at(n, 0);
    if (!is_scalar_one(n, 3) || !is_scalar_one(n, 4) || !is_fixed(g, bias) ||
        g.values[size_t(bias)].dtype != g.values[size_t(w)].dtype ||
        declared_rank(g.values[size_t(bias)]) != 1)
      return false;
  }
  ExecNode linear = replacement_for(n, "aten::linear");
  linear.args.push_back(tensor_arg(linear, x));
  linear.args.push_back(tensor_arg(linear, w));
  linear.args.push_back(tensor_arg(linear, bias));
  replace_node(g, du, i, std::move(linear));
  return true;
}

}  // namespace

size_t rewrite_weight_gemms_as_linear(ExecGraph& g, DefUse& def_use) {
  size_t rewritten = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].kind == StepKind::kKernel && !g.nodes[i].dead &&
        rewrite_linear(g, def_use, int32_t(i)))
      ++rewritten;
  if (rewritten > 0)
    drop_unread_nodes(g, def_use, [](std::string_view op) { return op == "aten::permute"; });
  return rewritten;
}

}  // namespace tir
