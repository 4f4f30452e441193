#include "runtime/exec/control_flow.h"

#include <array>
#include <vector>

#include "kernels/kernel_util.h"

namespace tir {
namespace {

using kernels::Arg;
using kernels::ArgKind;
using kernels::op_error;

constexpr size_t kPred = 0, kOperands = 3;

bool nonzero_scalar(const Tensor& t) {
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

bool scalar_dtype_ok(DType d) {
  return d == DType::kBool || d == DType::kUInt8 || d == DType::kInt8 || d == DType::kInt32 ||
         d == DType::kInt64 || d == DType::kFloat32 || d == DType::kFloat64;
}

class CondStep final : public ControlStep {
 public:
  explicit CondStep(std::unique_ptr<CondBranches> branches) : branches_(std::move(branches)) {}

  Status prepare(const kernels::KernelCall& call) {
    if (call.args.size() != 4)
      return op_error(call, StatusCode::kInvalidArgument, "expected 4 arguments, got ",
                      call.args.size());
    const Arg& pred = call.args[kPred];
    if (pred.kind == ArgKind::kInt || pred.kind == ArgKind::kBool) {
      taken_ = pred.i != 0 ? 0 : 1;
    } else if (pred.kind == ArgKind::kTensor) {
      const Tensor& t = call.inputs[pred.i];
      if (t.numel() != 1 || !scalar_dtype_ok(t.dtype))
        return op_error(call, StatusCode::kInvalidArgument,
                        "the predicate must be a one-element bool tensor, got ",
                        dtype_name(t.dtype), shape_str(t.shape()));
      pred_input_ = pred.i;
    } else {
      return op_error(call, StatusCode::kUnsupported, "unsupported predicate: a ",
                      arg_kind_name(pred.kind), ", expected a bool tensor or a symbolic bool");
    }
    if (call.args[kOperands].kind != ArgKind::kTensors)
      return op_error(call, StatusCode::kInvalidArgument, "operands are not a list of tensors");
    operand_inputs_.assign(call.args[kOperands].ints.begin(), call.args[kOperands].ints.end());
    for (int64_t in : operand_inputs_) operands_.push_back(call.inputs[in]);

    if (taken_ >= 0) return branches_->prepare(taken_, operands_, call.outputs);
    TIR_RETURN_IF_ERROR(branches_->prepare(0, operands_, call.outputs));
    std::vector<Tensor> other(call.outputs.size());
    TIR_RETURN_IF_ERROR(branches_->prepare(1, operands_, other));
    for (size_t k = 0; k < other.size(); ++k) {
      const Tensor& a = call.outputs[k];
      if (a.dtype != other[k].dtype || !a.same_shape(other[k]))
        return op_error(call, StatusCode::kInvalidArgument, "the branches return different ",
                        "outputs: output ", k, " is ", dtype_name(a.dtype), shape_str(a.shape()),
                        " in true_fn but ", dtype_name(other[k].dtype), shape_str(other[k].shape()),
                        " in false_fn");
    }
    return ok_status();
  }

  Status run(std::span<const Tensor> inputs, std::span<Tensor> outputs) override {
    const int taken = taken_ >= 0 ? taken_ : (nonzero_scalar(inputs[pred_input_]) ? 0 : 1);
    for (size_t k = 0; k < operands_.size(); ++k)
      operands_[k].data = inputs[operand_inputs_[k]].data;
    return branches_->run(taken, operands_, outputs);
  }

 private:
  std::unique_ptr<CondBranches> branches_;
  int taken_ = -1;           // 0 / 1 when the predicate is symbolic, else -1
  int64_t pred_input_ = -1;  // index into the inputs of a tensor predicate
  std::vector<int64_t> operand_inputs_;
  std::vector<Tensor> operands_;
};

}  // namespace

Result<std::unique_ptr<ControlStep>> cond_prepare(std::unique_ptr<CondBranches> branches,
                                                  const kernels::KernelCall& call) {
  auto step = std::make_unique<CondStep>(std::move(branches));
  TIR_RETURN_IF_ERROR(step->prepare(call));
  return std::unique_ptr<ControlStep>(std::move(step));
}

}  // namespace tir
