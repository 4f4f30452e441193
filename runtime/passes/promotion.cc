#include "runtime/passes/promotion.h"

#include <array>
#include <string_view>
#include <vector>

#include "kernels/shapes/dtype_util.h"

namespace tir {
namespace {

enum class Rule : uint8_t { kOutput, kCompare };

struct Promoting {
  std::string_view op;
  Rule rule;
  std::array<int8_t, 3> tensor_args;  // argument positions that take part (-1: none)
  bool bool_other = false;            // the kernels read a bool `other` as 0/1 themselves: no cast
};

constexpr Promoting kPromoting[] = {
    {"aten::add.Tensor", Rule::kOutput, {0, 1, -1}, true},
    {"aten::sub.Tensor", Rule::kOutput, {0, 1, -1}, true},
    {"aten::mul.Tensor", Rule::kOutput, {0, 1, -1}, true},
    {"aten::div.Tensor", Rule::kOutput, {0, 1, -1}, true},
    {"aten::add.Scalar", Rule::kOutput, {0, -1, -1}},
    {"aten::sub.Scalar", Rule::kOutput, {0, -1, -1}},
    {"aten::mul.Scalar", Rule::kOutput, {0, -1, -1}},
    {"aten::div.Scalar", Rule::kOutput, {0, -1, -1}},
    {"aten::rsub.Scalar", Rule::kOutput, {0, -1, -1}},
    {"aten::maximum", Rule::kOutput, {0, 1, -1}},
    {"aten::minimum", Rule::kOutput, {0, 1, -1}},
    {"aten::pow.Tensor_Tensor", Rule::kOutput, {0, 1, -1}},
    {"aten::where.self", Rule::kOutput, {1, 2, -1}},
    {"aten::eq.Tensor", Rule::kCompare, {0, 1, -1}},
    {"aten::ne.Tensor", Rule::kCompare, {0, 1, -1}},
    {"aten::lt.Tensor", Rule::kCompare, {0, 1, -1}},
    {"aten::le.Tensor", Rule::kCompare, {0, 1, -1}},
    {"aten::gt.Tensor", Rule::kCompare, {0, 1, -1}},
    {"aten::ge.Tensor", Rule::kCompare, {0, 1, -1}},
};

const Promoting* promoting(std::string_view op) {
  for (const Promoting& p : kPromoting)
    if (p.op == op) return &p;
  return nullptr;
}

bool castable(DType d) {
  return d == DType::kBool || d == DType::kInt32 || d == DType::kInt64 || d == DType::kFloat32 ||
         d == DType::kFloat64;
}

/// The dtype torch computes node `n` in, or kUndefined when nothing is to be done.
DType compute_dtype(const ExecGraph& g, const ExecNode& n, const Promoting& p) {
  if (n.outputs.empty() || !g.values[n.outputs[0]].is_tensor) return DType::kUndefined;
  if (p.rule == Rule::kOutput) return g.values[n.outputs[0]].dtype;
  std::vector<kernels::Operand> ops;
  for (int8_t a : p.tensor_args) {
    if (a < 0 || size_t(a) >= n.args.size()) continue;
    const ExecArg& arg = n.args[size_t(a)];
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

ExecNode make_cast(const ExecGraph& g, int32_t from, int32_t to, DType dtype) {
  ExecNode c;
  c.op = "aten::_to_copy";
  c.name = ir::str(g.values[from].ir->name());
  c.device = g.values[from].device;
  ExecArg self;
  self.kind = kernels::ArgKind::kTensor;
  self.i = 0;
  self.name = "self";
  ExecArg d;
  d.kind = kernels::ArgKind::kDType;
  d.i = int64_t(dtype);
  d.name = "dtype";
  c.args = {self, d};
  c.inputs = {from};
  c.outputs = {to};
  return c;
}

}  // namespace

size_t promote_operands(ExecGraph& g) {
  std::vector<ExecNode> out;
  out.reserve(g.nodes.size());
  size_t inserted = 0;
  for (ExecNode& n : g.nodes) {
    const Promoting* p = n.dead ? nullptr : promoting(n.op);
    const DType want = p ? compute_dtype(g, n, *p) : DType::kUndefined;
    if (castable(want)) {
      for (int8_t a : p->tensor_args) {
        if (a < 0 || size_t(a) >= n.args.size() ||
            n.args[size_t(a)].kind != kernels::ArgKind::kTensor)
          continue;
        int32_t& v = n.inputs[size_t(n.args[size_t(a)].i)];
        const DType have = g.values[v].dtype;
        if (have == want || !castable(have) || (p->bool_other && a == 1 && have == DType::kBool))
          continue;
        const int32_t cast = g.add_value_like(v, g.values[v].device);
        g.values[cast].dtype = want;
        out.push_back(make_cast(g, v, cast, want));
        v = cast;
        ++inserted;
      }
    }
    out.push_back(std::move(n));
  }
  g.nodes = std::move(out);
  return inserted;
}

}  // namespace tir
