// The higher_order::cond kernel against a fake SubgraphRunner: which branches it prepares
// and runs for each kind of predicate, and its errors (differing branch outputs, a predicate
// that is not one bool, an unsupported predicate kind). End to end on torch exports:
// tests/runtime/control_flow_test.cc.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

constexpr int64_t kTrue = 3, kFalse = 5;  // subgraph indices of the two branches

/// Records what the kernel asks for; subgraph `i` returns one float32 tensor of
/// `shapes[i]` filled with the value i.
class FakeRunner final : public SubgraphRunner {
 public:
  std::vector<std::vector<int64_t>> shapes = std::vector<std::vector<int64_t>>(8, {2, 3});
  std::vector<int64_t> prepared, ran;
  size_t operands_seen = 0;

  Status prepare(int64_t index, std::span<const Tensor> inputs,
                 std::span<Tensor> out_outputs) override {
    prepared.push_back(index);
    operands_seen = inputs.size();
    out_outputs[0] = make_tensor(DType::kFloat32, shapes[index], nullptr);
    return ok_status();
  }
  Status run(int64_t index, std::span<const Tensor> inputs, std::span<Tensor> outputs) override {
    ran.push_back(index);
    for (int64_t i = 0; i < outputs[0].numel(); ++i)
      outputs[0].data_as<float>()[i] = static_cast<float>(index);
    return ok_status();
  }
};

/// A cond node: pred (given), true_fn = kTrue, false_fn = kFalse, one operand tensor `x`.
struct CondCall {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs = std::vector<Tensor>(1);
  std::vector<int64_t> operand_index;
  std::vector<Arg> args;
  FakeRunner runner;
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
    Arg t{ArgKind::kGraph, kTrue}, f{ArgKind::kGraph, kFalse}, ops{ArgKind::kTensors};
    ops.ints = operand_index;
    args = {pred, t, f, ops};
    call = {"higher_order::cond", "cond", args, inputs, outputs, &runner};
  }
  std::unique_ptr<Kernel> make() const {
    const KernelEntry* e =
        KernelRegistry::global().find("higher_order::cond", DeviceType::kCpu, DType::kBool);
    return e ? e->factory() : nullptr;
  }
};

TEST(Cond, SymbolicPredicatePreparesAndRunsOnlyTheTakenBranch) {
  for (int64_t value : {1, 0}) {
    CondCall c(Arg{ArgKind::kInt, value});
    auto k = c.make();
    ASSERT_NE(k, nullptr);
    PrepareInfo info;
    ASSERT_TRUE(k->prepare(c.call, &info).ok());
    const int64_t want = value ? kTrue : kFalse;
    EXPECT_EQ(c.runner.prepared, std::vector<int64_t>{want});
    EXPECT_EQ(c.runner.operands_seen, 1u);
    c.outputs[0].data = c.y;
    ASSERT_TRUE(k->run(c.call, nullptr).ok());
    EXPECT_EQ(c.runner.ran, std::vector<int64_t>{want});
    EXPECT_EQ(c.y[5], float(want));
  }
}

TEST(Cond, TensorPredicatePreparesBothAndPicksAtRunTime) {
  CondCall c(Arg{ArgKind::kTensor}, {});
  auto k = c.make();
  PrepareInfo info;
  ASSERT_TRUE(k->prepare(c.call, &info).ok());
  EXPECT_EQ(c.runner.prepared, (std::vector<int64_t>{kTrue, kFalse}));
  EXPECT_EQ(c.outputs[0].shape()[1], 3);
  c.outputs[0].data = c.y;
  for (uint8_t p : {1, 0, 1}) {
    c.pred_byte = p;
    ASSERT_TRUE(k->run(c.call, nullptr).ok());
  }
  EXPECT_EQ(c.runner.ran, (std::vector<int64_t>{kTrue, kFalse, kTrue}));
}

TEST(Cond, BranchesWithDifferentOutputsAreAnError) {
  CondCall c(Arg{ArgKind::kTensor}, {});
  c.runner.shapes[kFalse] = {2, 4};
  PrepareInfo info;
  const Status s = c.make()->prepare(c.call, &info);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "node 'cond' (higher_order::cond): the branches return different outputs: output 0 "
            "is float32[2, 3] in true_fn but float32[2, 4] in false_fn");
}

TEST(Cond, PredicateMustBeOneBool) {
  CondCall c(Arg{ArgKind::kTensor}, {2});
  PrepareInfo info;
  const Status s = c.make()->prepare(c.call, &info);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "node 'cond' (higher_order::cond): the predicate must be a one-element bool tensor, "
            "got bool[2]");
}

TEST(Cond, UnsupportedPredicateKindIsAnError) {
  CondCall c(Arg{ArgKind::kFloat, 0, 0.5});
  PrepareInfo info;
  const Status s = c.make()->prepare(c.call, &info);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_EQ(s.message(),
            "node 'cond' (higher_order::cond): unsupported predicate: a float, expected a bool "
            "tensor or a symbolic bool");
  EXPECT_TRUE(c.runner.prepared.empty());
}

}  // namespace
}  // namespace tir::kernels
