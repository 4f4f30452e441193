#include "runtime/passes/gqa_attention.h"

#include <cstdlib>
#include <string_view>

#include "runtime/passes/node_match.h"

namespace tir {
namespace {

constexpr size_t kKeyArg = 1, kValueArg = 2, kGqaArg = 7;

const ir::fb::Dim& dim(const ExecGraph& g, int32_t v, size_t d) {
  return *g.values[size_t(v)].ir->sizes()->Get(d);
}

/// Declared size of `v`'s dim `d` when it is static; -1 otherwise.
int64_t static_dim(const ExecGraph& g, int32_t v, size_t d) {
  const ir::fb::Dim& x = dim(g, v, d);
  return x.expr() ? -1 : x.value();
}

/// The node producing `v` when it is `op` and `v` has no other reader than one node (and is
/// no method output); -1 otherwise.
int32_t sole_producer(const ExecGraph& g, const DefUse& du, int32_t v,
                      std::initializer_list<std::string_view> ops) {
  if (v < 0 || du.pinned[size_t(v)] || du.users[size_t(v)].size() != 1) return -1;
  const int32_t p = du.producer[size_t(v)];
  if (p < 0) return -1;
  const ExecNode& n = g.nodes[size_t(p)];
  for (std::string_view op : ops)
    if (n.op == op) return p;
  return -1;
}

/// A plain float32 value the passes left as declared (not narrowed, not channels-last).
bool plain(const ExecGraph& g, int32_t v, int rank) {
  const ExecValue& x = g.values[size_t(v)];
  return x.is_tensor && x.dtype == DType::kFloat32 && declared_rank(x) == rank &&
         x.last_position_dim < 0 && !x.channels_last;
}

/// x and R when `v` (an attention's key or value) is reshape(expand(unsqueeze(x, 2))) as in
/// the header; x = -1 otherwise.
std::pair<int32_t, int64_t> grouped_source(const ExecGraph& g, const DefUse& du, int32_t v) {
  const int32_t r = sole_producer(g, du, v, {"aten::reshape", "aten::view", "aten::_unsafe_view"});
  if (r < 0 || !plain(g, v, 4)) return {-1, 0};
  const int32_t e_out = tensor_at(g.nodes[size_t(r)], 0);
  const int32_t e = sole_producer(g, du, e_out, {"aten::expand"});
  if (e < 0 || !plain(g, e_out, 5)) return {-1, 0};
  const int32_t u_out = tensor_at(g.nodes[size_t(e)], 0);
  const int32_t u = sole_producer(g, du, u_out, {"aten::unsqueeze"});
  if (u < 0 || !plain(g, u_out, 5)) return {-1, 0};
  const ExecNode& unsqueeze = g.nodes[size_t(u)];
  if (unsqueeze.args.size() < 2 || unsqueeze.args[1].kind != kernels::ArgKind::kInt ||
      (unsqueeze.args[1].i != 2 && unsqueeze.args[1].i != -3))
    return {-1, 0};
  const int32_t x = tensor_at(unsqueeze, 0);
  if (x < 0 || !plain(g, x, 4)) return {-1, 0};
  // expand: [B, KV, 1, S, D] -> [B, KV, R, S, D]; reshape: -> [B, KV * R, S, D].
  const int64_t kv = static_dim(g, x, 1), reps = static_dim(g, e_out, 2);
  if (kv <= 0 || reps <= 1 || static_dim(g, v, 1) != kv * reps) return {-1, 0};
  for (size_t d : {0, 2, 3}) {
    const size_t from = d == 0 ? 0 : d + 1;  // the expand's dims around the new one
    if (!same_declared_dim(dim(g, x, d), dim(g, e_out, from)) ||
        !same_declared_dim(dim(g, x, d), dim(g, v, d)))
      return {-1, 0};
  }
  if (!same_declared_dim(dim(g, x, 1), dim(g, e_out, 1))) return {-1, 0};
  return {x, reps};
}

bool rewrite_gqa(ExecGraph& g, DefUse& du, int32_t i) {
  ExecNode& n = g.nodes[size_t(i)];
  if (n.op != "aten::scaled_dot_product_attention" || n.args.size() <= kGqaArg ||
      n.args[kGqaArg].kind != kernels::ArgKind::kBool || n.args[kGqaArg].i != 0)
    return false;
  const int32_t k = tensor_at(n, kKeyArg), v = tensor_at(n, kValueArg);
  if (k < 0 || v < 0 || k == v) return false;
  const auto [xk, rk] = grouped_source(g, du, k);
  const auto [xv, rv] = grouped_source(g, du, v);
  if (xk < 0 || xv < 0 || rk != rv) return false;
  du.remove_node(i, n);
  n.inputs[size_t(n.args[kKeyArg].i)] = xk;
  n.inputs[size_t(n.args[kValueArg].i)] = xv;
  n.args[kGqaArg].i = 1;
  du.add_node(i, n);
  return true;
}

}  // namespace

size_t read_grouped_kv_in_place(ExecGraph& g, DefUse& def_use) {
  if (const char* v = std::getenv("TIR_GQA_IN_PLACE"); v && std::string_view(v) == "0") return 0;
  size_t rewritten = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].kind == StepKind::kKernel && !g.nodes[i].dead &&
        rewrite_gqa(g, def_use, int32_t(i)))
      ++rewritten;
  if (rewritten > 0)
    drop_unread_nodes(g, def_use, [](std::string_view op) {
      return op == "aten::reshape" || op == "aten::view" || op == "aten::_unsafe_view" ||
             op == "aten::expand" || op == "aten::unsqueeze";
    });
  return rewritten;
}

}  // namespace tir
