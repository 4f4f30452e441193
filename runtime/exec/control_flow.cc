#include "runtime/exec/control_flow.h"

#include <vector>

#include "kernels/kernel_util.h"

namespace tir {
namespace {

using kernels::Arg;
using kernels::ArgKind;
using kernels::op_error;

constexpr size_t kPred = 0, kOperands = 3;

const char* arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::kNone:
      return "None";
    case ArgKind::kFloat:
      return "float";
    case ArgKind::kInts:
    case ArgKind::kBools:
    case ArgKind::kFloats:
      return "list";
    case ArgKind::kTensors:
      return "tensor list";
    default:
      return "non-bool argument";
  }
}

/// Reads the predicate and the operands of `call` into `cond`.
Status cond_bind(const kernels::KernelCall& call, CondPlan& cond) {
  if (call.args.size() != 4)
    return op_error(call, StatusCode::kInvalidArgument, "expected 4 arguments, got ",
                    call.args.size());
  const Arg& pred = call.args[kPred];
  if (pred.kind == ArgKind::kInt || pred.kind == ArgKind::kBool) {
    cond.taken = pred.i != 0 ? 0 : 1;
  } else if (pred.kind == ArgKind::kTensor) {
    const Tensor& t = call.inputs[pred.i];
    if (t.numel() != 1 || !predicate_dtype_ok(t.dtype))
      return op_error(call, StatusCode::kInvalidArgument,
                      "the predicate must be a one-element bool tensor, got ", dtype_name(t.dtype),
                      shape_str(t.shape()));
    cond.pred_input = pred.i;
  } else {
    return op_error(call, StatusCode::kUnsupported, "unsupported predicate: a ",
                    arg_kind_name(pred.kind), ", expected a bool tensor or a symbolic bool");
  }
  if (call.args[kOperands].kind != ArgKind::kTensors)
    return op_error(call, StatusCode::kInvalidArgument, "operands are not a list of tensors");
  cond.operand_inputs.assign(call.args[kOperands].ints.begin(), call.args[kOperands].ints.end());
  for (int64_t in : cond.operand_inputs) cond.operands.push_back(call.inputs[in]);
  return ok_status();
}

/// Builds branch `b`'s sub-plan and writes its outputs' dtypes and shapes to `outputs`.
Status cond_build(const kernels::KernelCall& call, CondPlan& cond, int b, const BuildBranch& build,
                  std::span<Tensor> outputs) {
  TIR_ASSIGN_OR_RETURN(cond.branches[b], build(cond.graphs[b], cond.operands));
  const Plan& sub = *cond.branches[b];
  if (sub.graph->outputs.size() != outputs.size())
    return op_error(call, StatusCode::kInternal, "branch ", b, " returns ",
                    sub.graph->outputs.size(), " values, the node has ", outputs.size(),
                    " outputs");
  for (size_t k = 0; k < outputs.size(); ++k) {
    const Tensor& v = sub.values[sub.graph->outputs[k]];
    outputs[k] = make_tensor(v.dtype, v.shape(), nullptr);
  }
  return ok_status();
}

}  // namespace

bool predicate_dtype_ok(DType d) {
  return d == DType::kBool || d == DType::kUInt8 || d == DType::kInt8 || d == DType::kInt32 ||
         d == DType::kInt64 || d == DType::kFloat32 || d == DType::kFloat64;
}

bool predicate_value(const Tensor& t) {
  switch (t.dtype) {
    case DType::kFloat32:
      return *t.data_as<const float>() != 0.0f;
    case DType::kFloat64:
      return *t.data_as<const double>() != 0.0;
    case DType::kInt64:
      return *t.data_as<const int64_t>() != 0;
    case DType::kInt32:
      return *t.data_as<const int32_t>() != 0;
    default:  // kBool, kUInt8, kInt8
      return *t.data_as<const uint8_t>() != 0;
  }
}

Result<std::unique_ptr<CondPlan>> cond_prepare(const kernels::KernelCall& call,
                                               std::array<int32_t, 2> graphs,
                                               const BuildBranch& build) {
  auto cond = std::make_unique<CondPlan>();
  cond->graphs = graphs;
  TIR_RETURN_IF_ERROR(cond_bind(call, *cond));
  if (cond->taken >= 0) {
    TIR_RETURN_IF_ERROR(cond_build(call, *cond, cond->taken, build, call.outputs));
    return cond;
  }
  TIR_RETURN_IF_ERROR(cond_build(call, *cond, 0, build, call.outputs));
  std::vector<Tensor> other(call.outputs.size());
  TIR_RETURN_IF_ERROR(cond_build(call, *cond, 1, build, other));
  for (size_t k = 0; k < other.size(); ++k) {
    const Tensor& a = call.outputs[k];
    if (a.dtype != other[k].dtype || !a.same_shape(other[k]))
      return op_error(call, StatusCode::kInvalidArgument, "the branches return different ",
                      "outputs: output ", k, " is ", dtype_name(a.dtype), shape_str(a.shape()),
                      " in true_fn but ", dtype_name(other[k].dtype), shape_str(other[k].shape()),
                      " in false_fn");
  }
  return cond;
}

int cond_select(CondPlan& cond, std::span<const Tensor> inputs) {
  for (size_t k = 0; k < cond.operands.size(); ++k)
    cond.operands[k].data = inputs[cond.operand_inputs[k]].data;
  if (cond.taken >= 0) return cond.taken;
  return predicate_value(inputs[cond.pred_input]) ? 0 : 1;
}

}  // namespace tir
