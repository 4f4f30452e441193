#include "runtime/passes/narrow_dtypes.h"

#include <unordered_map>
#include <vector>

#include "kernels/ops/catalogue.h"
#include "kernels/registry.h"

namespace tir {
namespace {

bool is_narrow(DType d) { return wide_compute_dtype(d) != DType::kUndefined; }

/// True when `row`'s kernels take the narrow dtype `d` as it is.
bool runs_in(const kernels::OpRow& row, DType d) {
  return row.caps.all_dtypes || row.reference.contains(d) || row.cpu.contains(d);
}

/// True when a `d` operand of `row`'s op is computed on in its wide dtype.
bool widens(const kernels::OpRow& row, kernels::Family family, DType d) {
  if (!is_narrow(d) || runs_in(row, d)) return false;
  // Narrow integers: every op but searchsorted and bucketize, whose int32 outputs (out_int32)
  // are the kernels' own choice.
  const bool chooses_int32 =
      row.op.starts_with("aten::searchsorted") || row.op.starts_with("aten::bucketize");
  return dtype_is_float(d) || row.caps.promoted != 0 || family != kernels::Family::kSortSelect ||
         !chooses_int32;
}

/// The narrow dtype node `n` reads or writes (tensors or a ScalarType argument) that its
/// kernels do not take; kUndefined when there is none. Integer results computed in int64 wrap
/// back as torch's narrow integer arithmetic wraps; the quantization family keeps its
/// int8/uint8 as they are.
DType needs_widening(const ExecGraph& g, const ExecNode& n) {
  if (n.kind != StepKind::kKernel || n.dead) return DType::kUndefined;
  kernels::Family family{};
  const kernels::OpRow* row = kernels::find_op_row(n.op, &family);
  if (row == nullptr || family == kernels::Family::kQuantization)
    return DType::kUndefined;  // custom ops: their kernels say
  const auto check = [&](DType d) { return widens(*row, family, d); };
  bool native_input = false;  // a narrow first input the row lists: its kernel picks the outputs
  for (int32_t v : n.inputs) {
    if (v < 0 || !g.values[v].is_tensor) continue;
    if (check(g.values[v].dtype)) return g.values[v].dtype;
    if (!native_input)
      native_input = is_narrow(g.values[v].dtype) && runs_in(*row, g.values[v].dtype);
  }
  // _int_mm's int8 x int8 -> int32 product: int32 is the kernel's own result, not arithmetic
  // torch does in int32, so it is not widened.
  if (!native_input)
    for (int32_t v : n.outputs)
      if (v >= 0 && g.values[v].is_tensor && check(g.values[v].dtype)) return g.values[v].dtype;
  for (const ExecArg& a : n.args)
    if (a.kind == kernels::ArgKind::kDType && check(DType(a.i))) return DType(a.i);
  return DType::kUndefined;
}

/// An in-place ATen op ("aten::add_"): it writes its first argument.
bool writes_first_input(std::string_view op) {
  const size_t dot = op.find('.', op.find("::") + 2);
  const std::string_view name = op.substr(0, dot);
  return !name.empty() && name.back() == '_';
}

}  // namespace

bool narrow_dtype_widened(const kernels::OpRow& row, kernels::Family family, DType d) {
  return family != kernels::Family::kQuantization && widens(row, family, d);
}

DType wide_compute_dtype(DType d) {
  switch (d) {
    case DType::kFloat16:
    case DType::kBFloat16:
      return DType::kFloat32;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
      return DType::kInt64;
    default:
      return DType::kUndefined;
  }
}

size_t compute_narrow_dtypes_wide(ExecGraph& g) {
  std::vector<ExecNode> out;
  out.reserve(g.nodes.size());
  std::unordered_map<int32_t, int32_t> widened;  // narrow value -> its wide cast
  size_t count = 0;
  for (ExecNode& n : g.nodes) {
    if (writes_first_input(n.op) && !n.inputs.empty()) widened.erase(n.inputs[0]);
    kernels::Family family{};
    const kernels::OpRow* row = kernels::find_op_row(n.op, &family);
    if (needs_widening(g, n) == DType::kUndefined) {
      out.push_back(std::move(n));
      continue;
    }
    ++count;
    for (int32_t& v : n.inputs) {
      if (v < 0 || !g.values[v].is_tensor || !widens(*row, family, g.values[v].dtype)) continue;
      auto [it, fresh] = widened.try_emplace(v, -1);
      if (fresh) {
        const DType wide = wide_compute_dtype(g.values[v].dtype);
        it->second = g.add_value_like(v, g.values[v].device);
        g.values[it->second].dtype = wide;
        out.push_back(exec_graph_cast_node(g, v, it->second, wide));
      }
      v = it->second;
    }
    for (ExecArg& a : n.args)
      if (a.kind == kernels::ArgKind::kDType && widens(*row, family, DType(a.i)))
        a.i = int64_t(wide_compute_dtype(DType(a.i)));
    std::vector<ExecNode> rounds;
    for (int32_t& v : n.outputs) {
      if (v < 0 || !g.values[v].is_tensor || !widens(*row, family, g.values[v].dtype)) continue;
      const int32_t wide = g.add_value_like(v, g.values[v].device);
      g.values[wide].dtype = wide_compute_dtype(g.values[v].dtype);
      rounds.push_back(exec_graph_cast_node(g, wide, v, g.values[v].dtype));
      v = wide;
    }
    out.push_back(std::move(n));
    for (ExecNode& r : rounds) out.push_back(std::move(r));
  }
  g.nodes = std::move(out);
  return count;
}

size_t read_half_weights_as_stored(ExecGraph& g) {
  std::unordered_map<int32_t, size_t> cast_of;  // float32 cast of a half weight -> its node
  std::vector<int32_t> uses(g.values.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ExecNode& n = g.nodes[i];
    if (n.dead) continue;
    for (int32_t v : n.inputs)
      if (v >= 0) ++uses[size_t(v)];
    if (n.index >= 0 || n.op != "aten::_to_copy" || n.inputs.size() != 1 || n.outputs.size() != 1)
      continue;  // not a cast this pass made
    const ExecValue& from = g.values[n.inputs[0]];
    const bool weight = (from.weight >= 0 || from.constant >= 0) && !from.mutated;
    if (weight && wide_compute_dtype(from.dtype) == DType::kFloat32) cast_of[n.outputs[0]] = i;
  }
  size_t count = 0;
  for (ExecNode& n : g.nodes) {
    if (n.dead || n.kernel == nullptr || n.kernel->caps.half_weight == 0) continue;
    for (size_t k = 0; k < n.args.size() && k < 8; ++k) {
      if ((n.kernel->caps.half_weight >> k & 1u) == 0 ||
          n.args[k].kind != kernels::ArgKind::kTensor)
        continue;
      int32_t& v = n.inputs[size_t(n.args[k].i)];
      const auto it = cast_of.find(v);
      if (it == cast_of.end()) continue;
      --uses[size_t(v)];
      v = g.nodes[it->second].inputs[0];
      ++count;
    }
  }
  for (const auto& [v, i] : cast_of)
    if (uses[size_t(v)] == 0) g.nodes[i].dead = true;
  return count;
}

}  // namespace tir
