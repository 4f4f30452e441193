// MethodExecutor: one method of a loaded model, bound to weights, ready to run.
// Internal to the runtime; embedders use Session (runtime/session.h).
//
// Load resolves every node to a kernel factory (an op without a kernel is a load error
// naming op and node). Each distinct symbol binding gets a Plan: kernels instantiated and
// prepared for those shapes, inferred shapes checked against the program's, and all
// activations placed in one arena by the greedy planner. Plans are cached (bounded).
// `run` is a flat loop over prepared calls: no allocation, no validation.
#pragma once

#include <list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/model.h"
#include "kernels/registry.h"
#include "runtime/weight_set.h"

namespace tir {

struct Plan;

class MethodExecutor {
 public:
  /// `model` must outlive the executor (Session keeps its DataSource alive).
  static Result<std::unique_ptr<MethodExecutor>> create(const ir::ModelView& model,
                                                        const ir::fb::Method& method,
                                                        std::shared_ptr<const WeightSet> weights,
                                                        size_t max_cached_plans);
  ~MethodExecutor();

  /// Runs on `inputs` (signature order). The returned tensors view memory owned by the
  /// executor (or the caller's inputs / the weights) and stay valid until the next run.
  /// Not thread-safe: one run at a time per executor.
  Result<std::span<const Tensor>> run(std::span<const Tensor> inputs);

  const ir::fb::Method& method() const { return method_; }
  size_t arena_bytes() const;
  size_t num_nodes() const { return nodes_.size(); }
  size_t num_cached_plans() const { return plans_.size(); }
  /// Kernel `run` calls made so far (tests use it to show a rejected input ran nothing).
  uint64_t kernel_calls() const { return kernel_calls_; }

 private:
  struct NodeInfo {
    const ir::fb::Node* node;
    const kernels::KernelEntry* kernel;
  };
  MethodExecutor(const ir::ModelView& model, const ir::fb::Method& method);
  Status bind_weights(std::shared_ptr<const WeightSet> weights);
  Result<Plan*> plan_for(std::span<const Tensor> inputs);
  Result<std::unique_ptr<Plan>> build_plan(std::vector<int64_t> symbols,
                                           std::span<const Tensor> inputs);

  ir::ModelView model_;
  const ir::fb::Method& method_;
  std::shared_ptr<const WeightSet> weights_;
  std::vector<NodeInfo> nodes_;
  std::vector<void*> fixed_data_;           // per value: weight/constant bytes, else nullptr
  std::list<std::unique_ptr<Plan>> plans_;  // most recently used first
  size_t max_plans_ = 8;
  std::vector<Tensor> outputs_;
  uint64_t kernel_calls_ = 0;
};

}  // namespace tir
