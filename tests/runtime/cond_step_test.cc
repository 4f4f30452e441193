// The higher_order::cond step (runtime/exec/control_flow.h) with fake branch sub-plans: which
// branches get a sub-plan for each kind of predicate, which one a run selects, and the errors
// (differing branch outputs, a predicate that is not one bool, an unsupported predicate
// kind). End to end on torch exports: tests/runtime/control_flow_test.cc.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/exec/control_flow.h"

namespace tir {
namespace {

using kernels::Arg;
using kernels::ArgKind;
using kernels::KernelCall;

constexpr int32_t kTrueGraph = 3, kFalseGraph = 5;  // subgraph indices of the two branches

/// The branches' fake graphs and what the step asked of them.
struct Branches {
  /// Output shape of the true_fn and the false_fn sub-plan.
  std::vector<std::vector<int64_t>> shapes = {{2, 3}, {2, 3}};
  ExecGraph graph;             // one output, value 0
  std::vector<int32_t> built;  // subgraph indices, in build order
  size_t operands_seen = 0;

  Branches() { graph.outputs = {0}; }
  BuildBranch builder() {
    return [this](int32_t index, std::span<const Tensor> operands) {
      built.push_back(index);
      operands_seen = operands.size();
      auto plan = std::make_unique<Plan>();
      plan->graph = &graph;
      plan->values = {make_tensor(DType::kFloat32, shapes[index == kTrueGraph ? 0 : 1], nullptr)};
      return Result<std::unique_ptr<Plan>>(std::move(plan));
    };
  }
};

/// A cond node as the plan passes it: pred (given), true_fn and false_fn (subgraph indices,
/// as lowered), one operand tensor `x`.
struct CondCall {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs = std::vector<Tensor>(1);
  std::vector<int64_t> operand_index;
  std::vector<Arg> args;
  Branches branches;
  uint8_t pred_byte = 0;
  float x[6] = {};
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
  Result<std::unique_ptr<CondPlan>> prepare() {
    return cond_prepare(call, {kTrueGraph, kFalseGraph}, branches.builder());
  }
};

TEST(CondStep, SymbolicPredicatePlansAndRunsOnlyTheTakenBranch) {
  for (int64_t value : {1, 0}) {
    SCOPED_TRACE(value);
    CondCall c(Arg{ArgKind::kInt, value});
    auto cond = c.prepare();
    ASSERT_TRUE(cond.ok()) << cond.status().message();
    const int want = value ? 0 : 1;
    EXPECT_EQ(c.branches.built, std::vector<int32_t>{want == 0 ? kTrueGraph : kFalseGraph});
    EXPECT_EQ(c.branches.operands_seen, 1u);
    EXPECT_TRUE((*cond)->branches[want]);
    EXPECT_FALSE((*cond)->branches[1 - want]);
    EXPECT_EQ(c.outputs[0].dtype, DType::kFloat32);
    EXPECT_EQ(c.outputs[0].shape()[1], 3);
    EXPECT_EQ(cond_select(**cond, c.inputs), want);
    EXPECT_EQ((*cond)->operands[0].data, c.x);
  }
  // A symbolic bool (`s0 > 4` evaluated) works the same.
  CondCall b(Arg{ArgKind::kBool, 1});
  auto cond = b.prepare();
  ASSERT_TRUE(cond.ok());
  EXPECT_EQ(b.branches.built, std::vector<int32_t>{kTrueGraph});
}

TEST(CondStep, TensorPredicatePlansBothAndSelectsAtRunTime) {
  CondCall c(Arg{ArgKind::kTensor}, {});
  auto cond = c.prepare();
  ASSERT_TRUE(cond.ok()) << cond.status().message();
  EXPECT_EQ(c.branches.built, (std::vector<int32_t>{kTrueGraph, kFalseGraph}));
  EXPECT_EQ(c.outputs[0].shape()[1], 3);
  for (uint8_t p : {1, 0, 1}) {
    c.pred_byte = p;
    EXPECT_EQ(cond_select(**cond, c.inputs), p ? 0 : 1);
  }
  // Operands are read where the run's inputs are now (the plan moves activations).
  float moved[6] = {};
  std::vector<Tensor> inputs = c.inputs;
  inputs[1].data = moved;
  cond_select(**cond, inputs);
  EXPECT_EQ((*cond)->operands[0].data, moved);
}

TEST(CondStep, BranchesWithDifferentOutputsAreAnError) {
  CondCall c(Arg{ArgKind::kTensor}, {});
  c.branches.shapes[1] = {2, 4};
  auto cond = c.prepare();
  ASSERT_FALSE(cond.ok());
  EXPECT_EQ(cond.status().message(),
            "node 'cond' (higher_order::cond): the branches return different outputs: output 0 "
            "is float32[2, 3] in true_fn but float32[2, 4] in false_fn");
}

TEST(CondStep, PredicateMustBeOneBool) {
  CondCall c(Arg{ArgKind::kTensor}, {2});
  auto cond = c.prepare();
  ASSERT_FALSE(cond.ok());
  EXPECT_EQ(cond.status().message(),
            "node 'cond' (higher_order::cond): the predicate must be a one-element bool tensor, "
            "got bool[2]");
  EXPECT_TRUE(c.branches.built.empty());
}

TEST(CondStep, UnsupportedPredicateKindIsAnError) {
  CondCall c(Arg{ArgKind::kFloat, 0, 0.5});
  auto cond = c.prepare();
  ASSERT_FALSE(cond.ok());
  EXPECT_EQ(cond.status().code(), StatusCode::kUnsupported);
  EXPECT_EQ(cond.status().message(),
            "node 'cond' (higher_order::cond): unsupported predicate: a float, expected a bool "
            "tensor or a symbolic bool");
  EXPECT_TRUE(c.branches.built.empty());
}

}  // namespace
}  // namespace tir
