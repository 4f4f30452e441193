// The higher_order::cond step (runtime/exec/control_flow.h) against fake CondBranches: which
// branches it prepares and runs for each kind of predicate, and its errors (differing branch
// outputs, a predicate that is not one bool, an unsupported predicate kind). End to end on
// torch exports: tests/runtime/control_flow_test.cc.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/exec/control_flow.h"

namespace tir {
namespace {

using kernels::Arg;
using kernels::ArgKind;
using kernels::KernelCall;

constexpr int64_t kTrueGraph = 3, kFalseGraph = 5;  // subgraph indices of the two branches

/// What the step asked of its branches (outlives the fake, which the step owns).
struct BranchLog {
  /// Output shape of branch 0 (true_fn) and 1 (false_fn).
  std::vector<std::vector<int64_t>> shapes = {{2, 3}, {2, 3}};
  std::vector<int> prepared, ran;
  size_t operands_seen = 0;
  const void* operand_data = nullptr;  // of the last run's first operand
};

/// Branch b returns one float32 tensor of `shapes[b]` filled with the value b.
class FakeBranches final : public CondBranches {
 public:
  explicit FakeBranches(BranchLog* log) : log_(log) {}
  Status prepare(int branch, std::span<const Tensor> operands,
                 std::span<Tensor> out_outputs) override {
    log_->prepared.push_back(branch);
    log_->operands_seen = operands.size();
    out_outputs[0] = make_tensor(DType::kFloat32, log_->shapes[branch], nullptr);
    return ok_status();
  }
  Status run(int branch, std::span<const Tensor> operands, std::span<Tensor> outputs) override {
    log_->ran.push_back(branch);
    log_->operand_data = operands.empty() ? nullptr : operands[0].data;
    for (int64_t i = 0; i < outputs[0].numel(); ++i)
      outputs[0].data_as<float>()[i] = static_cast<float>(branch);
    return ok_status();
  }

 private:
  BranchLog* log_;
};

/// A cond node as the executor passes it: pred (given), true_fn and false_fn (subgraph
/// indices, as lowered), one operand tensor `x`.
struct CondCall {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs = std::vector<Tensor>(1);
  std::vector<int64_t> operand_index;
  std::vector<Arg> args;
  BranchLog log;
  uint8_t pred_byte = 0;
  float x[6] = {};
  float y[6] = {};
  KernelCall call;

  /// `pred` is a kTensor arg (a bool tensor of `pred_shape`) or any other Arg as given.
  explicit CondCall(Arg pred, std::vector<int64_t> pred_shape = {}) {
    if (pred.kind == ArgKind::kTensor) {
      inputs.push_back(make_tensor(DType::kBool, pred_shape, &pred_byte));
      pred.i = 0;
    }
    inputs.push_back(make_tensor(DType::kFloat32, std::vector<int64_t>{2, 3}, x));
    operand_index = {int64_t(inputs.size() - 1)};
    Arg t{ArgKind::kNone, kTrueGraph}, f{ArgKind::kNone, kFalseGraph}, ops{ArgKind::kTensors};
    ops.ints = operand_index;
    args = {pred, t, f, ops};
    call = {"higher_order::cond", "cond", args, inputs, outputs};
  }
  Result<std::unique_ptr<ControlStep>> prepare() {
    return cond_prepare(std::make_unique<FakeBranches>(&log), call);
  }
};

TEST(CondStep, SymbolicPredicatePreparesAndRunsOnlyTheTakenBranch) {
  for (int64_t value : {1, 0}) {
    SCOPED_TRACE(value);
    CondCall c(Arg{ArgKind::kInt, value});
    auto step = c.prepare();
    ASSERT_TRUE(step.ok()) << step.status().message();
    const int want = value ? 0 : 1;
    EXPECT_EQ(c.log.prepared, std::vector<int>{want});
    EXPECT_EQ(c.log.operands_seen, 1u);
    EXPECT_EQ(c.outputs[0].dtype, DType::kFloat32);
    EXPECT_EQ(c.outputs[0].shape()[1], 3);
    c.outputs[0].data = c.y;
    ASSERT_TRUE((*step)->run(c.inputs, c.outputs).ok());
    EXPECT_EQ(c.log.ran, std::vector<int>{want});
    EXPECT_EQ(c.log.operand_data, c.x);
    EXPECT_EQ(c.y[5], float(want));
  }
  // A symbolic bool (`s0 > 4` evaluated) works the same.
  CondCall b(Arg{ArgKind::kBool, 1});
  auto step = b.prepare();
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(b.log.prepared, std::vector<int>{0});
}

TEST(CondStep, TensorPredicatePreparesBothAndPicksAtRunTime) {
  CondCall c(Arg{ArgKind::kTensor}, {});
  auto step = c.prepare();
  ASSERT_TRUE(step.ok()) << step.status().message();
  EXPECT_EQ(c.log.prepared, (std::vector<int>{0, 1}));
  EXPECT_EQ(c.outputs[0].shape()[1], 3);
  c.outputs[0].data = c.y;
  for (uint8_t p : {1, 0, 1}) {
    c.pred_byte = p;
    ASSERT_TRUE((*step)->run(c.inputs, c.outputs).ok());
    EXPECT_EQ(c.y[0], p ? 0.0f : 1.0f);
  }
  EXPECT_EQ(c.log.ran, (std::vector<int>{0, 1, 0}));
  // Operands are read where the run's inputs are now (the plan moves activations).
  float moved[6] = {};
  std::vector<Tensor> inputs = c.inputs;
  inputs[1].data = moved;
  ASSERT_TRUE((*step)->run(inputs, c.outputs).ok());
  EXPECT_EQ(c.log.operand_data, moved);
}

TEST(CondStep, BranchesWithDifferentOutputsAreAnError) {
  CondCall c(Arg{ArgKind::kTensor}, {});
  c.log.shapes[1] = {2, 4};
  auto step = c.prepare();
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().message(),
            "node 'cond' (higher_order::cond): the branches return different outputs: output 0 "
            "is float32[2, 3] in true_fn but float32[2, 4] in false_fn");
}

TEST(CondStep, PredicateMustBeOneBool) {
  CondCall c(Arg{ArgKind::kTensor}, {2});
  auto step = c.prepare();
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().message(),
            "node 'cond' (higher_order::cond): the predicate must be a one-element bool tensor, "
            "got bool[2]");
  EXPECT_TRUE(c.log.prepared.empty());
}

TEST(CondStep, UnsupportedPredicateKindIsAnError) {
  CondCall c(Arg{ArgKind::kFloat, 0, 0.5});
  auto step = c.prepare();
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(step.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(step.status().message(),
            "node 'cond' (higher_order::cond): unsupported predicate: a float, expected a bool "
            "tensor or a symbolic bool");
  EXPECT_TRUE(c.log.prepared.empty());
}

}  // namespace
}  // namespace tir
