#include "runtime/passes/quant_rewrite.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "runtime/passes/node_match.h"

namespace tir {

using kernels::ArgKind;

namespace {

constexpr std::string_view kDequantTensor = "quantized_decomposed::dequantize_per_tensor";
constexpr std::string_view kDequantChannel = "quantized_decomposed::dequantize_per_channel";

bool is_dtype(const ExecNode& n, size_t pos, DType want) {
  return pos < n.args.size() && n.args[pos].kind == ArgKind::kDType &&
         static_cast<DType>(n.args[pos].i) == want;
}

/// out_dtype keyword of a dequantize op: absent, None or float32.
bool float_out(const ExecNode& n, size_t pos) {
  return pos >= n.args.size() || n.args[pos].kind == ArgKind::kNone ||
         is_dtype(n, pos, DType::kFloat32);
}

/// Declared static size of `dim` (negative: from the end); -1 when symbolic or absent.
int64_t static_dim(const ExecValue& v, int dim) {
  const auto* sizes = v.ir->sizes();
  if (!sizes) return -1;
  const int rank = int(sizes->size());
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || sizes->Get(dim)->expr() || dim == v.last_position_dim) return -1;
  return sizes->Get(dim)->value();
}

bool is_view(std::string_view op) {
  return op == "aten::view" || op == "aten::reshape" || op == "aten::_unsafe_view";
}

struct Rewriter {
  ExecGraph& g;
  DefUse& du;

  const ExecNode* made_by(int32_t v) const {
    const int32_t p = v >= 0 ? du.producer[size_t(v)] : -1;
    return p >= 0 ? &g.nodes[size_t(p)] : nullptr;
  }
  bool fixed(int32_t v) const { return is_fixed(g, v); }

  /// dequantize_per_tensor (scalar scale and zero point) of a uint8/int8 tensor, or null.
  const ExecNode* activation_dequant(int32_t v, bool allow_view) const {
    const ExecNode* p = made_by(v);
    if (p && allow_view && is_view(p->op)) {
      const int32_t from = tensor_at(*p, 0);
      const int64_t k = static_dim(g.values[size_t(v)], -1);
      if (from < 0 || k < 0 || static_dim(g.values[size_t(from)], -1) != k) return nullptr;
      p = made_by(from);
    }
    if (!p || p->op != kDequantTensor || p->args.size() < 6) return nullptr;
    if (p->args[1].kind != ArgKind::kFloat || p->args[2].kind != ArgKind::kInt) return nullptr;
    const bool u8 = is_dtype(*p, 5, DType::kUInt8), s8 = is_dtype(*p, 5, DType::kInt8);
    return (u8 || s8) && float_out(*p, 6) ? p : nullptr;
  }

  /// dequantize_per_channel of an int8 [N, K] weight along axis 0, or null.
  const ExecNode* weight_dequant(int32_t v) const {
    const ExecNode* p = made_by(v);
    if (!p || p->op != kDequantChannel || p->args.size() < 7) return nullptr;
    const int32_t q = tensor_at(*p, 0), scales = tensor_at(*p, 1);
    const bool no_zp = p->args[2].kind == ArgKind::kNone;
    const int32_t zp = tensor_at(*p, 2);
    if (!fixed(q) || !fixed(scales) || (!no_zp && !fixed(zp))) return nullptr;
    if (g.values[size_t(q)].dtype != DType::kInt8 || declared_rank(g.values[size_t(q)]) != 2)
      return nullptr;
    const bool axis0 =
        p->args[3].kind == ArgKind::kInt && (p->args[3].i == 0 || p->args[3].i == -2);
    return axis0 && is_dtype(*p, 6, DType::kInt8) && float_out(*p, 7) ? p : nullptr;
  }

  /// Rewrites GEMM node i into a quantized linear; false when it does not match.
  bool rewrite(int32_t i) {
    ExecNode& n = g.nodes[size_t(i)];
    const bool addmm = n.op == "aten::addmm";
    if (!addmm && n.op != "aten::linear") return false;
    int32_t a = -1, w = -1, bias = -1;
    if (addmm) {
      if (!is_scalar_one(n, 3) || !is_scalar_one(n, 4)) return false;
      bias = tensor_at(n, 0);
      a = tensor_at(n, 1);
      const ExecNode* perm = made_by(tensor_at(n, 2));
      if (!perm || perm->op != "aten::permute" || perm->args.size() < 2 ||
          perm->args[1].ints != std::vector<int64_t>{1, 0})
        return false;
      w = tensor_at(*perm, 0);
    } else {
      a = tensor_at(n, 0);
      w = tensor_at(n, 1);
      bias = tensor_at(n, 2);
      if (bias < 0 && n.args.size() > 2 && n.args[2].kind != ArgKind::kNone) return false;
    }
    if (bias >= 0 && (g.values[size_t(bias)].dtype != DType::kFloat32 ||
                      declared_rank(g.values[size_t(bias)]) != 1))
      return false;
    const ExecNode* dq_x = activation_dequant(a, addmm);
    const ExecNode* dq_w = weight_dequant(w);
    if (!dq_x || !dq_w) return false;

    ExecNode q = replacement_for(n, "tir::quantized_linear");
    const auto tensor = [&](int32_t v) { return tensor_arg(q, v); };
    q.args.push_back(tensor(tensor_at(*dq_x, 0)));
    q.args.push_back(dq_x->args[1]);  // scale
    q.args.push_back(dq_x->args[2]);  // zero point
    q.args.push_back(tensor(tensor_at(*dq_w, 0)));
    q.args.push_back(tensor(tensor_at(*dq_w, 1)));
    q.args.push_back(tensor(tensor_at(*dq_w, 2)));
    q.args.push_back(tensor(bias));
    ExecArg flatten;
    flatten.kind = ArgKind::kInt;
    flatten.i = addmm ? 1 : 0;
    q.args.push_back(flatten);
    replace_node(g, du, i, std::move(q));
    return true;
  }
};

}  // namespace

size_t rewrite_quantized_linears(ExecGraph& g, DefUse& def_use) {
  Rewriter r{g, def_use};
  size_t rewritten = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].kind == StepKind::kKernel && !g.nodes[i].dead && r.rewrite(int32_t(i)))
      ++rewritten;
  if (rewritten == 0) return 0;
  // Dequantize / view / permute nodes nobody reads any more: dead, last ones first.
  drop_unread_nodes(g, def_use, [](std::string_view op) {
    return op == kDequantTensor || op == kDequantChannel || op == "aten::permute" || is_view(op);
  });
  return rewritten;
}

}  // namespace tir
