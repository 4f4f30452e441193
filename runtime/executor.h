// MethodExecutor: one method of a loaded model, bound to weights, ready to run.
// Internal to the runtime; embedders use Session (runtime/session.h).
//
// Load (once): lower the method into an ExecGraph (runtime/exec_graph.h), place its nodes on
// devices and resolve their kernels (placement.h; an op without a kernel is a load error
// naming op and node), fuse (fusion.h), insert copies where values cross devices, choose
// channels-last values (layout.h), drop dead nodes; each cond branch gets an executor of its
// own. Per distinct symbol binding: a Plan (plan.h) with kernels prepared for those shapes and
// one arena per device, cached (bounded, least recently used goes). `run` is a flat loop over
// the plan's prepared steps: no allocation, no validation.
#pragma once

#include <list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/model.h"
#include "runtime/device.h"
#include "runtime/exec_graph.h"
#include "runtime/placement.h"
#include "runtime/plan.h"
#include "runtime/weight_source.h"

namespace tir {

class Profiler;
class SessionState;

struct ExecutorOptions {
  size_t max_cached_plans = 8;
  /// Mutable buffers the method reads and writes (runtime/session_state.h); may be null.
  SessionState* state = nullptr;
  /// Run the fusion and layout passes (off: every node runs on its own, plain layouts).
  bool fuse = true;
  /// Passed to every kernel call (KernelCall::precision; GEMM-class kernels may use bf16).
  Precision precision = Precision::kFloat32;
  /// Where nodes may run; devices[0] holds inputs and outputs. Empty: cpu_device().
  std::vector<std::shared_ptr<Device>> devices;
  PlacementPolicy placement;  // unset: everything on devices[0]
};

class MethodExecutor {
 public:
  /// `model` must outlive the executor (Session keeps its DataSource alive).
  static Result<std::unique_ptr<MethodExecutor>> create(const ir::ModelView& model,
                                                        const ir::fb::Method& method,
                                                        std::shared_ptr<WeightSource> weights,
                                                        const ExecutorOptions& options);
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

  /// Points the executor (and its subgraphs') at another weight source whose set was already
  /// checked against the model (runtime/weight_binding.h check_weights). Cheap: pointers are
  /// re-resolved now; a cached plan re-prepares, on its next run, only the steps that read a
  /// weight whose bytes changed.
  Status rebind_weights(std::shared_ptr<WeightSource> weights);
  const WeightSet& weights() const { return weights_->set(); }

  const ir::fb::Method& method() const { return *graph_.method; }
  /// The lowered graph after all passes (tests inspect placement, copies, fusion).
  const ExecGraph& graph() const { return graph_; }
  size_t arena_bytes() const;
  size_t num_nodes() const { return graph_.method->nodes() ? graph_.method->nodes()->size() : 0; }
  /// Producer + activation (or conv + batch norm) groups this executor runs as one call each.
  size_t num_fused_groups() const { return graph_.num_fused; }
  /// Activations stored channels-last between the kernels that share them (runtime/layout.h).
  size_t num_channels_last() const { return graph_.num_channels_last; }
  /// Copy steps placement inserted between devices, those in cond branches included.
  size_t num_copies() const;
  size_t num_cached_plans() const { return plans_.size(); }
  /// Steps run so far, kernel calls, copies and those in cond branches included (tests use it
  /// to show a rejected input ran nothing, and which branch ran).
  uint64_t kernel_calls() const;
  /// Records every step of later runs into `profiler` (not owned; nullptr turns it off).
  void set_profiler(Profiler* profiler) { profiler_ = profiler; }
  Profiler* profiler() const { return profiler_; }

 private:
  class Branches;
  class Preparer;
  MethodExecutor() = default;
  Status load(const ir::ModelView& model, const ir::fb::Method& method);
  Status bind_fixed_data();
  Status refresh_weights(Plan& plan);
  PlanInputs plan_inputs();
  Result<Plan*> plan_for(std::span<const Tensor> inputs);
  Plan* find_plan(std::span<const int64_t> symbols);  // moves it to the front; nullptr if none
  Status add_plan(std::vector<int64_t> symbols, std::span<const Tensor> inputs);
  Result<std::span<const Tensor>> execute(Plan* plan, std::span<const Tensor> inputs);
  Result<std::span<const Tensor>> execute_steps(Plan* plan, std::span<const Tensor> inputs);
  Status run_step(PlanStep& step);

  const ir::ModelView* model_ = nullptr;
  ExecutorOptions options_;
  ExecGraph graph_;
  std::vector<std::unique_ptr<MethodExecutor>> subgraphs_;  // per Method.subgraphs entry
  std::unique_ptr<Preparer> preparer_;
  std::shared_ptr<WeightSource> weights_;
  bool resident_ = true;                  // weights_->resident()
  std::vector<void*> fixed_data_;         // per value: weight/constant/state bytes, else nullptr
  std::vector<kernels::WeightKey> keys_;  // per value: the weight's key
  std::vector<const kernels::QuantizedWeight*> quantized_;  // per value: int8 storage or null
  std::list<std::unique_ptr<Plan>> plans_;                  // most recently used first
  /// Weights and constants uploaded to devices the host cannot address (plan.h).
  DeviceUploads uploads_;
  std::vector<Tensor> outputs_;
  std::vector<std::vector<uint8_t>> held_outputs_;  // outputs that view streamed weights
  size_t num_copies_ = 0;
  uint64_t kernel_calls_ = 0;
  Profiler* profiler_ = nullptr;
  /// Each mutation output is copied back into its SessionState buffer after a run.
  std::vector<std::pair<int32_t, Tensor*>> write_back_;
  uint64_t bind_count_ = 0;  // bumped by every rebind; a plan records the one it matches
};

}  // namespace tir
