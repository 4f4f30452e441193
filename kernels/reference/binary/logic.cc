// Reference comparisons, bitwise/logical ops, where and triu/tril. Operands
// are read element by element converted to the op's compute dtype (torch's promotion).
#include "kernels/shapes/binary/logic.h"

#include "kernels/kernel_util.h"
#include "kernels/reference/binary/math.h"
#include "kernels/reference/register.h"
#include "kernels/registry_shorthands.h"

namespace tir::kernels {
namespace {

// Element `idx` of operand `o` as T (a scalar operand ignores idx).
template <typename T>
T load(const Operand& o, const KernelCall& call, int64_t idx) {
  if (o.input < 0) return o.value.as<T>();
  const void* data = call.inputs[o.input].data;
  switch (o.dtype) {
    case DType::kBool:
      return static_cast<T>(static_cast<const bool*>(data)[idx]);
    case DType::kInt32:
      return static_cast<T>(static_cast<const int32_t*>(data)[idx]);
    case DType::kInt64:
      return static_cast<T>(static_cast<const int64_t*>(data)[idx]);
    case DType::kFloat32:
      return static_cast<T>(static_cast<const float*>(data)[idx]);
    case DType::kFloat64:
      return static_cast<T>(static_cast<const double*>(data)[idx]);
    default:
      return T{};
  }
}

template <typename T>
bool compare(LogicOp op, T a, T b) {
  switch (op) {
    case LogicOp::kEq:
      return a == b;
    case LogicOp::kNe:
      return a != b;
    case LogicOp::kLt:
      return a < b;
    case LogicOp::kLe:
      return a <= b;
    case LogicOp::kGt:
      return a > b;
    case LogicOp::kGe:
      return a >= b;
    default:
      return false;
  }
}

// eq/ne/lt/le/gt/ge: a bool output.
template <typename T>
void run_compare(const LogicParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  bool* y = call.outputs[0].data_as<bool>();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    y[i] = compare<T>(p.op, load<T>(o[0], call, in[0]), load<T>(o[1], call, in[1]));
  });
}

// bitwise_not, on bool and integer compute dtypes only.
template <typename T>
void run_bit_not(const LogicParams& p, const KernelCall& call) {
  if constexpr (std::is_integral_v<T>) {
    const Operand* o = p.operands.data();
    T* y = call.outputs[0].data_as<T>();
    nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
      const T a = load<T>(o[0], call, in[0]);
      if constexpr (std::is_same_v<T, bool>) {
        y[i] = !a;
      } else {
        y[i] = static_cast<T>(~a);
      }
    });
  }
}

template <typename T>
void run_logical_not(const LogicParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  bool* y = call.outputs[0].data_as<bool>();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    y[i] = load<T>(o[0], call, in[0]) == T{};
  });
}

// where(cond, a, b): a choice per element by a bool operand.
template <typename T>
void run_where(const LogicParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  T* y = call.outputs[0].data_as<T>();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    y[i] = load<bool>(o[0], call, in[0]) ? load<T>(o[1], call, in[1]) : load<T>(o[2], call, in[2]);
  });
}

// triu/tril over the last two dims of a contiguous input.
template <typename T>
void run_triangle(const LogicParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  const T* x = call.inputs[o[0].input].data_as<const T>();
  T* y = call.outputs[0].data_as<T>();
  const int64_t rows = p.plan.sizes[p.plan.rank - 2], cols = p.plan.sizes[p.plan.rank - 1];
  const int64_t mats = rows * cols == 0 ? 0 : p.plan.numel() / (rows * cols);
  for (int64_t m = 0; m < mats; ++m) {
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = 0; c < cols; ++c) {
        const int64_t i = (m * rows + r) * cols + c;
        const bool keep = p.op == LogicOp::kTriu ? c - r >= p.diagonal : c - r <= p.diagonal;
        y[i] = keep ? x[i] : T{};
      }
    }
  }
}

template <typename T>
void run_typed(const LogicParams& p, const KernelCall& call) {
  switch (p.op) {
    case LogicOp::kEq:
    case LogicOp::kNe:
    case LogicOp::kLt:
    case LogicOp::kLe:
    case LogicOp::kGt:
    case LogicOp::kGe:
      run_compare<T>(p, call);
      return;
    case LogicOp::kBitNot:
      run_bit_not<T>(p, call);
      return;
    case LogicOp::kLogicalNot:
      run_logical_not<T>(p, call);
      return;
    case LogicOp::kWhere:
      run_where<T>(p, call);
      return;
    case LogicOp::kTriu:
    case LogicOp::kTril:
      run_triangle<T>(p, call);
      return;
  }
}

/// where on complex values: elements of U's size selected as they are stored.
template <typename U>
void run_where_bits(const LogicParams& p, const KernelCall& call) {
  const Operand* o = p.operands.data();
  const U* a = call.inputs[o[1].input].data_as<const U>();
  const U* b = call.inputs[o[2].input].data_as<const U>();
  U* y = call.outputs[0].data_as<U>();
  nary_for_each(p.plan, [&](int64_t i, const std::array<int64_t, 3>& in) {
    y[i] = load<bool>(o[0], call, in[0]) ? a[in[1]] : b[in[2]];
  });
}

void ref_logic(const LogicParams& p, const KernelCall& call, void*) {
  if (p.compute == DType::kComplexFloat) return run_where_bits<uint64_t>(p, call);
  if (p.compute == DType::kComplexDouble) return run_where_bits<Bits128>(p, call);
  visit_dtype(p.compute, [&](auto tag) { run_typed<decltype(tag)>(p, call); });
}

template <LogicOp Op>
using CompareRef = FnKernel<LogicParams, logic_prepare_compare<Op>, ref_logic>;
template <LogicOp Op>
using NotRef = FnKernel<LogicParams, logic_prepare_not<Op>, ref_logic>;
template <LogicOp Op>
using TriangleRef = FnKernel<LogicParams, logic_prepare_triangle<Op>, ref_logic>;
using WhereRef = FnKernel<LogicParams, logic_prepare_where, ref_logic>;

template <LogicOp Op>
KernelEntry compare_entry(const char* op, DType d) {
  return {op, kCpu, d, kRef, &make_kernel<CompareRef<Op>>};
}

// eq/ne/lt/le/gt/ge on float32 and int64.
void register_compare_f32_i64(KernelRegistry& registry) {
  registry.add({
      compare_entry<LogicOp::kEq>("aten::eq.Tensor", kF32),
      compare_entry<LogicOp::kEq>("aten::eq.Tensor", DType::kFloat64),
      compare_entry<LogicOp::kEq>("aten::eq.Scalar", DType::kFloat64),
      compare_entry<LogicOp::kNe>("aten::ne.Tensor", DType::kFloat64),
      compare_entry<LogicOp::kNe>("aten::ne.Scalar", DType::kFloat64),
      compare_entry<LogicOp::kLt>("aten::lt.Tensor", DType::kFloat64),
      compare_entry<LogicOp::kLt>("aten::lt.Scalar", DType::kFloat64),
      compare_entry<LogicOp::kLe>("aten::le.Tensor", DType::kFloat64),
      compare_entry<LogicOp::kLe>("aten::le.Scalar", DType::kFloat64),
      compare_entry<LogicOp::kGt>("aten::gt.Tensor", DType::kFloat64),
      compare_entry<LogicOp::kGt>("aten::gt.Scalar", DType::kFloat64),
      compare_entry<LogicOp::kGe>("aten::ge.Tensor", DType::kFloat64),
      compare_entry<LogicOp::kGe>("aten::ge.Scalar", DType::kFloat64),
      compare_entry<LogicOp::kEq>("aten::eq.Tensor", kI64),
      compare_entry<LogicOp::kEq>("aten::eq.Scalar", kF32),
      compare_entry<LogicOp::kEq>("aten::eq.Scalar", kI64),
      compare_entry<LogicOp::kNe>("aten::ne.Tensor", kF32),
      compare_entry<LogicOp::kNe>("aten::ne.Tensor", kI64),
      compare_entry<LogicOp::kNe>("aten::ne.Scalar", kF32),
      compare_entry<LogicOp::kNe>("aten::ne.Scalar", kI64),
      compare_entry<LogicOp::kLt>("aten::lt.Tensor", kF32),
      compare_entry<LogicOp::kLt>("aten::lt.Tensor", kI64),
      compare_entry<LogicOp::kLt>("aten::lt.Scalar", kF32),
      compare_entry<LogicOp::kLt>("aten::lt.Scalar", kI64),
      compare_entry<LogicOp::kLe>("aten::le.Tensor", kF32),
      compare_entry<LogicOp::kLe>("aten::le.Tensor", kI64),
      compare_entry<LogicOp::kLe>("aten::le.Scalar", kF32),
      compare_entry<LogicOp::kLe>("aten::le.Scalar", kI64),
      compare_entry<LogicOp::kGt>("aten::gt.Tensor", kF32),
      compare_entry<LogicOp::kGt>("aten::gt.Tensor", kI64),
      compare_entry<LogicOp::kGt>("aten::gt.Scalar", kF32),
      compare_entry<LogicOp::kGt>("aten::gt.Scalar", kI64),
      compare_entry<LogicOp::kGe>("aten::ge.Tensor", kF32),
      compare_entry<LogicOp::kGe>("aten::ge.Tensor", kI64),
      compare_entry<LogicOp::kGe>("aten::ge.Scalar", kF32),
      compare_entry<LogicOp::kGe>("aten::ge.Scalar", kI64),
  });
}

// bitwise and/or operators (the binary math kernel), bitwise_not, logical_not and where.
void register_bitwise_logical_where(KernelRegistry& registry) {
  registry.add({
      math_binary<BinaryKind::kBitAnd>("aten::__and__.Tensor", kBool),
      math_binary<BinaryKind::kBitAnd>("aten::__and__.Tensor", kI64),
      math_binary<BinaryKind::kBitOr>("aten::__or__.Tensor", kBool),
      math_binary<BinaryKind::kBitOr>("aten::__or__.Tensor", kI64),
      {"aten::bitwise_not", kCpu, kBool, kRef, &make_kernel<NotRef<LogicOp::kBitNot>>},
      {"aten::bitwise_not", kCpu, kI64, kRef, &make_kernel<NotRef<LogicOp::kBitNot>>},
      {"aten::logical_not", kCpu, kBool, kRef, &make_kernel<NotRef<LogicOp::kLogicalNot>>},
      {"aten::logical_not", kCpu, kI64, kRef, &make_kernel<NotRef<LogicOp::kLogicalNot>>},
      {"aten::logical_not", kCpu, kF32, kRef, &make_kernel<NotRef<LogicOp::kLogicalNot>>},
      {"aten::logical_not", kCpu, kI32, kRef, &make_kernel<NotRef<LogicOp::kLogicalNot>>},
      {"aten::logical_not", kCpu, kF64, kRef, &make_kernel<NotRef<LogicOp::kLogicalNot>>},
      {"aten::bitwise_not", kCpu, kI32, kRef, &make_kernel<NotRef<LogicOp::kBitNot>>},
      math_binary<BinaryKind::kBitAnd>("aten::__and__.Tensor", kI32),
      math_binary<BinaryKind::kBitOr>("aten::__or__.Tensor", kI32),
      {"aten::where.self", kCpu, kBool, kRef, &make_kernel<WhereRef>},
      {"aten::where.ScalarOther", kCpu, kBool, kRef, &make_kernel<WhereRef>},
      {"aten::where.ScalarSelf", kCpu, kBool, kRef, &make_kernel<WhereRef>},
      {"aten::where.Scalar", kCpu, kBool, kRef, &make_kernel<WhereRef>},
  });
}

// eq/ne/lt/le/gt/ge on int32 and bool.
void register_compare_i32_bool(KernelRegistry& registry) {
  registry.add({
      compare_entry<LogicOp::kEq>("aten::eq.Tensor", DType::kInt32),
      compare_entry<LogicOp::kEq>("aten::eq.Tensor", kBool),
      compare_entry<LogicOp::kEq>("aten::eq.Scalar", DType::kInt32),
      compare_entry<LogicOp::kEq>("aten::eq.Scalar", kBool),
      compare_entry<LogicOp::kNe>("aten::ne.Tensor", DType::kInt32),
      compare_entry<LogicOp::kNe>("aten::ne.Tensor", kBool),
      compare_entry<LogicOp::kNe>("aten::ne.Scalar", DType::kInt32),
      compare_entry<LogicOp::kNe>("aten::ne.Scalar", kBool),
      compare_entry<LogicOp::kLt>("aten::lt.Tensor", DType::kInt32),
      compare_entry<LogicOp::kLt>("aten::lt.Tensor", kBool),
      compare_entry<LogicOp::kLt>("aten::lt.Scalar", DType::kInt32),
      compare_entry<LogicOp::kLt>("aten::lt.Scalar", kBool),
      compare_entry<LogicOp::kLe>("aten::le.Tensor", DType::kInt32),
      compare_entry<LogicOp::kLe>("aten::le.Tensor", kBool),
      compare_entry<LogicOp::kLe>("aten::le.Scalar", DType::kInt32),
      compare_entry<LogicOp::kLe>("aten::le.Scalar", kBool),
      compare_entry<LogicOp::kGt>("aten::gt.Tensor", DType::kInt32),
      compare_entry<LogicOp::kGt>("aten::gt.Tensor", kBool),
      compare_entry<LogicOp::kGt>("aten::gt.Scalar", DType::kInt32),
      compare_entry<LogicOp::kGt>("aten::gt.Scalar", kBool),
      compare_entry<LogicOp::kGe>("aten::ge.Tensor", DType::kInt32),
      compare_entry<LogicOp::kGe>("aten::ge.Tensor", kBool),
      compare_entry<LogicOp::kGe>("aten::ge.Scalar", DType::kInt32),
      compare_entry<LogicOp::kGe>("aten::ge.Scalar", kBool),
  });
}

// triu and tril.
void register_triangle(KernelRegistry& registry) {
  registry.add({
      {"aten::triu", kCpu, kF32, kRef, &make_kernel<TriangleRef<LogicOp::kTriu>>},
      {"aten::triu", kCpu, kI64, kRef, &make_kernel<TriangleRef<LogicOp::kTriu>>},
      {"aten::triu", kCpu, kBool, kRef, &make_kernel<TriangleRef<LogicOp::kTriu>>},
      {"aten::tril", kCpu, kF32, kRef, &make_kernel<TriangleRef<LogicOp::kTril>>},
      {"aten::tril", kCpu, kI64, kRef, &make_kernel<TriangleRef<LogicOp::kTril>>},
      {"aten::tril", kCpu, kBool, kRef, &make_kernel<TriangleRef<LogicOp::kTril>>},
      {"aten::triu", kCpu, kI32, kRef, &make_kernel<TriangleRef<LogicOp::kTriu>>},
      {"aten::triu", kCpu, kF64, kRef, &make_kernel<TriangleRef<LogicOp::kTriu>>},
      {"aten::tril", kCpu, kI32, kRef, &make_kernel<TriangleRef<LogicOp::kTril>>},
      {"aten::tril", kCpu, kF64, kRef, &make_kernel<TriangleRef<LogicOp::kTril>>},
  });
}

}  // namespace

// In this order: the registry lists its entries in the order they were added.
void register_logic_ref(KernelRegistry& registry) {
  register_compare_f32_i64(registry);
  register_bitwise_logical_where(registry);
  register_compare_i32_bool(registry);
  register_triangle(registry);
}
}  // namespace tir::kernels
