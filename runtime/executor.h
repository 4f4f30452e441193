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
#include "runtime/fusion.h"
#include "runtime/weight_set.h"

namespace tir {

class Profiler;
class SessionState;
struct Plan;

class MethodExecutor {
 public:
  /// `model` must outlive the executor (Session keeps its DataSource alive). `fuse`: run
  /// GEMM/conv + activation groups as one kernel call (runtime/fusion.h). `precision`:
  /// passed to every kernel call (KernelCall::precision; GEMM-class kernels may use bf16).
  static Result<std::unique_ptr<MethodExecutor>> create(
      const ir::ModelView& model, const ir::fb::Method& method,
      std::shared_ptr<const WeightSet> weights, size_t max_cached_plans,
      SessionState* state = nullptr, bool fuse = true, Precision precision = Precision::kFloat32);
  ~MethodExecutor();

  /// Runs on `inputs` (signature order). The returned tensors view memory owned by the
  /// executor (or the caller's inputs / the weights) and stay valid until the next run.
  /// Not thread-safe: one run at a time per executor.
  Result<std::span<const Tensor>> run(std::span<const Tensor> inputs);

  /// A subgraph (a cond branch, runtime/control_flow.h) has no symbols of its own: it runs
  /// under the enclosing method's binding `symbols`. Builds the plan for them unless cached;
  /// `inputs` give dtypes and shapes (data may be null).
  Status prepare_subgraph(std::span<const int64_t> symbols, std::span<const Tensor> inputs);
  /// Runs a subgraph with the plan prepare_subgraph built for `symbols` (no allocation).
  Result<std::span<const Tensor>> run_subgraph(std::span<const int64_t> symbols,
                                               std::span<const Tensor> inputs);

  /// Points the executor at another weight set, already checked against the model
  /// (runtime/weight_binding.h check_weights). Cheap: pointers are re-resolved now; a cached
  /// plan re-prepares, on its next run, only the nodes whose weight pointers changed.
  Status rebind_weights(std::shared_ptr<const WeightSet> weights);
  const WeightSet& weights() const { return *weights_; }

  const ir::fb::Method& method() const { return method_; }
  size_t arena_bytes() const;
  size_t num_nodes() const { return nodes_.size(); }
  /// Producer + activation (or conv + batch norm) groups this executor runs as one kernel
  /// call each.
  size_t num_fused_groups() const { return num_fused_; }
  /// Activations stored channels-last between the kernels that share them (runtime/layout.h).
  size_t num_channels_last() const { return num_channels_last_; }
  size_t num_cached_plans() const { return plans_.size(); }
  /// Kernel `run` calls made so far, those in cond branches included (tests use it to show
  /// a rejected input ran nothing, and which branch ran).
  uint64_t kernel_calls() const { return kernel_calls_; }
  /// Records every node of later runs into `profiler` (not owned; nullptr turns it off).
  void set_profiler(Profiler* profiler) { profiler_ = profiler; }
  Profiler* profiler() const { return profiler_; }

 private:
  struct NodeInfo {
    const ir::fb::Node* node;
    const kernels::KernelEntry* kernel;
    // Fusion (runtime/fusion.h): a producer folds `batch_norm` (convs), adds `residual`
    // (convs), applies `epilogue` and writes `fused_output` (profiled as `fused_label`,
    // "aten::addmm+gelu_tanh", "aten::conv2d+batch_norm+add+relu"); `absorbed` nodes never
    // run. A group whose residual is computed after its producer sits at its add's index.
    kernels::Activation epilogue = kernels::Activation::kNone;
    FusedBatchNorm batch_norm;
    int32_t residual = -1;
    int32_t fused_output = -1;
    bool absorbed = false;
    std::string fused_label;
  };
  void apply_fusion();
  void apply_layout();
  size_t num_fused_ = 0;
  std::vector<bool> channels_last_;  // per value (runtime/layout.h); empty: all plain
  size_t num_channels_last_ = 0;
  bool fuse_ = true;
  Precision precision_ = Precision::kFloat32;
  MethodExecutor(const ir::ModelView& model, const ir::fb::Method& method);
  Status refresh_weights(Plan& plan);
  /// What a kernel's `prepare` sees as value `v`'s bytes: weights and constants (it may pack
  /// them, keyed by pointer); nullptr for activations and the buffers the method mutates.
  void* prepare_data(int32_t v) const;
  Result<Plan*> plan_for(std::span<const Tensor> inputs);
  Plan* find_plan(std::span<const int64_t> symbols);  // moves it to the front; nullptr if none
  Result<std::span<const Tensor>> execute(Plan* plan, std::span<const Tensor> inputs);
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
  Profiler* profiler_ = nullptr;
  /// Buffers the method mutates live in `state_` (runtime/session_state.h): the weight
  /// values read from there, and each mutation output is copied back after a run.
  SessionState* state_ = nullptr;
  std::vector<std::pair<int32_t, std::string>> state_values_;  // weight value -> buffer
  std::vector<std::pair<int32_t, Tensor*>> write_back_;        // mutation value -> buffer
  Status bind_state();
  uint64_t bind_count_ = 0;  // bumped by every rebind; a plan records the one it matches
};

}  // namespace tir
