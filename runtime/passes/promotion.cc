#include "runtime/passes/promotion.h"

#include <string_view>
#include <vector>

#include "kernels/ops/catalogue.h"
#include "kernels/shapes/dtype_util.h"

namespace tir {
namespace {

bool castable(DType d) { return d != DType::kUndefined && dtype_valid(int(d)); }

/// The dtype torch computes node `n` in (its row's capabilities `caps`), or kUndefined when
/// nothing is to be done.
DType compute_dtype(const ExecGraph& g, const ExecNode& n, const kernels::OpCaps& caps) {
  if (n.outputs.empty() || !g.values[n.outputs[0]].is_tensor) return DType::kUndefined;
  if (!caps.compare) return g.values[n.outputs[0]].dtype;
  std::vector<kernels::Operand> ops;
  for (size_t a = 0; a < n.args.size() && a < 8; ++a) {
    if (!(caps.promoted >> a & 1u)) continue;
    const ExecArg& arg = n.args[a];
    kernels::Operand o;
    if (arg.kind == kernels::ArgKind::kTensor) {
      const ExecValue& v = g.values[n.inputs[size_t(arg.i)]];
      o.kind = v.ir->sizes() && v.ir->sizes()->size() == 0 ? kernels::Operand::Kind::kZeroDim
                                                           : kernels::Operand::Kind::kTensor;
      o.dtype = v.dtype;
    } else if (arg.kind == kernels::ArgKind::kInt || arg.kind == kernels::ArgKind::kFloat ||
               arg.kind == kernels::ArgKind::kBool) {
      o.kind = kernels::Operand::Kind::kScalar;
      o.dtype = arg.kind == kernels::ArgKind::kFloat  ? DType::kFloat64
                : arg.kind == kernels::ArgKind::kBool ? DType::kBool
                                                      : DType::kInt64;
    } else {
      return DType::kUndefined;
    }
    ops.push_back(o);
  }
  return ops.empty() ? DType::kUndefined : kernels::result_type(ops);
}

}  // namespace

size_t promote_operands(ExecGraph& g) {
  std::vector<ExecNode> out;
  out.reserve(g.nodes.size());
  size_t inserted = 0;
  for (ExecNode& n : g.nodes) {
    const kernels::OpRow* row = n.dead ? nullptr : kernels::find_op_row(n.op);
    const DType want =
        row && row->caps.promoted ? compute_dtype(g, n, row->caps) : DType::kUndefined;
    // The node's input slot `slot` read as `want` (a cast in front of it where it differs).
    auto promote = [&](int64_t slot, bool keep_bool) {
      int32_t& v = n.inputs[size_t(slot)];
      const DType have = g.values[v].dtype;
      if (have == want || !castable(have) || (keep_bool && have == DType::kBool)) return;
      const int32_t cast = g.add_value_like(v, g.values[v].device);
      g.values[cast].dtype = want;
      out.push_back(exec_graph_cast_node(g, v, cast, want));
      v = cast;
      ++inserted;
    };
    for (size_t a = 0; castable(want) && a < n.args.size() && a < 8; ++a) {
      if (!(row->caps.promoted >> a & 1u)) continue;
      const ExecArg& arg = n.args[a];
      if (arg.kind == kernels::ArgKind::kTensor) {
        promote(arg.i, row->caps.bool_other && a == 1);
      } else if (arg.kind == kernels::ArgKind::kTensors) {  // cat, stack: every entry
        for (int64_t slot : arg.ints)
          if (slot >= 0) promote(slot, false);
      }
    }
    out.push_back(std::move(n));
  }
  g.nodes = std::move(out);
  return inserted;
}

}  // namespace tir
