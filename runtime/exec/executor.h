// MethodExecutor: one method of a loaded model, bound to weights, ready to run.
// Internal to the runtime; embedders use Session (runtime/exec/session.h).
//
// The method comes lowered and through every load-time pass (runtime/exec/lowered_method.h), shared
// read-only with the session's other executors. Per distinct symbol binding: a Plan (plan.h)
// with kernels prepared for those shapes and one arena per device, cached (bounded, least
// recently used goes); a cond's branches are sub-plans of its step (runtime/exec/control_flow.h).
// `run` is a flat loop over the plan's prepared steps: no allocation, no validation.
#pragma once

#include <list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/model.h"
#include "kernels/random.h"
#include "runtime/devices/device.h"
#include "runtime/exec/lowered_method.h"
#include "runtime/exec/plan.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/weights/weight_source.h"

namespace tir {

class BoundAdapter;
struct LoraNode;
class Profiler;
class SessionState;

struct ExecutorOptions {
  size_t max_cached_plans = 8;
  /// Mutable buffers the method reads and writes (runtime/exec/session_state.h); may be null.
  SessionState* state = nullptr;
  /// Passed to every kernel call (KernelCall::precision; GEMM-class kernels may use bf16).
  Precision precision = Precision::kFloat32;
  /// A while_loop whose predicate still holds after this many iterations fails (runtime/exec/
  /// loops.h): a guard against a loop that never ends.
  uint64_t max_loop_iterations = 1'000'000;
  /// Where random ops draw (KernelCall::random); null: the process's default stream.
  kernels::RandomStream* random = nullptr;
};

class MethodExecutor {
 public:
  /// An executor of `program` (shared; kept alive by the executor, never written), bound to
  /// `weights`, whose set was already checked against the model (check_weights).
  static Result<std::unique_ptr<MethodExecutor>> create(
      std::shared_ptr<const LoweredMethod> program, std::shared_ptr<WeightSource> weights,
      const ExecutorOptions& options);
  /// Lowers `method` for this executor alone, checks `weights` against the model and binds
  /// them (tools and tests; a Session lowers once for all its executors). `model` must
  /// outlive the executor.
  static Result<std::unique_ptr<MethodExecutor>> create(const ir::ModelView& model,
                                                        const ir::fb::Method& method,
                                                        std::shared_ptr<WeightSource> weights,
                                                        const ExecutorOptions& options,
                                                        const LoweringOptions& lowering = {});
  ~MethodExecutor();

  /// Runs on `inputs` (signature order). The returned tensors view memory owned by the
  /// executor (or the caller's inputs / the weights) and stay valid until the next run.
  /// Not thread-safe: one run at a time per executor.
  Result<std::span<const Tensor>> run(std::span<const Tensor> inputs);
  /// The same with `adapter`'s low-rank updates applied around the GEMMs it adapts
  /// (runtime/exec/lora_step.h); null: none. `adapter` must be bound to this executor's
  /// program and stay alive until the run returns; it is only read.
  Result<std::span<const Tensor>> run(std::span<const Tensor> inputs, const BoundAdapter* adapter);

  /// Points the executor (its cond branches included) at another weight source whose set was
  /// already checked against the model (runtime/weights/weight_binding.h check_weights). Cheap:
  /// pointers are re-resolved now; a cached plan re-prepares, on its next run, only the steps that
  /// read a weight whose bytes changed.
  Status rebind_weights(std::shared_ptr<WeightSource> weights);
  const WeightSet& weights() const { return weights_->set(); }

  const ir::fb::Method& method() const { return program().method(); }
  /// The lowered graph after all passes (tests inspect placement, copies, fusion).
  const ExecGraph& graph() const { return program().graph(); }
  const LoweredMethod& program() const { return *root_.program; }
  size_t arena_bytes() const;
  size_t num_nodes() const { return program().num_nodes(); }
  /// Producer + activation (or conv + batch norm) groups this executor runs as one call each.
  size_t num_fused_groups() const { return graph().num_fused; }
  /// Activations stored channels-last between the kernels that share them
  /// (runtime/passes/layout.h).
  size_t num_channels_last() const { return graph().num_channels_last; }
  /// Copy steps placement inserted between devices, those in cond branches included.
  size_t num_copies() const { return program().num_copies(); }
  size_t num_cached_plans() const { return plans_.size(); }
  /// Steps run so far, kernel calls, copies and those in cond branches included (tests use it
  /// to show a rejected input ran nothing, and which branch ran).
  uint64_t kernel_calls() const { return kernel_calls_; }
  /// Bytes loops copied so far: the state and rows their bodies could not compute in place
  /// (runtime/exec/loops.h), and each while_loop's final state.
  uint64_t loop_copied_bytes() const { return loop_copied_bytes_; }
  /// Records every step of later runs into `profiler` (not owned; nullptr turns it off).
  void set_profiler(Profiler* profiler) { profiler_ = profiler; }
  Profiler* profiler() const { return profiler_; }

 private:
  /// What one graph's plans read besides it, bound to the weights: the method's graph or a
  /// cond branch's (runtime/exec/control_flow.h), with those of its own branches.
  struct Binding {
    std::shared_ptr<const LoweredMethod> program;  // shared, read-only
    std::vector<void*> fixed_data;         // per value: weight/constant/state bytes, else nullptr
    std::vector<kernels::WeightKey> keys;  // per value: the weight's key
    std::vector<const kernels::QuantizedWeight*> quantized;  // per value: int8 storage or null
    /// Each mutation output is copied back into its SessionState buffer after a run.
    std::vector<std::pair<int32_t, Tensor*>> write_back;
    std::vector<Binding> subgraphs;  // per Method.subgraphs entry
  };

  MethodExecutor() = default;
  /// The executor of `program` (and of its branches), bound to no weights yet.
  static std::unique_ptr<MethodExecutor> make(std::shared_ptr<const LoweredMethod> program,
                                              const ExecutorOptions& options);
  static void init_binding(Binding& b, std::shared_ptr<const LoweredMethod> program);
  Status bind_fixed_data(Binding& b);
  Status refresh_weights(Plan& plan, const Binding& b);
  Status refresh_steps(Plan& plan, const Binding& b, const std::vector<bool>& changed);
  PlanInputs plan_inputs(const Binding& b);
  Result<Plan*> plan_for(std::span<const Tensor> inputs);
  Plan* find_plan(std::span<const int64_t> symbols);  // moves it to the front; nullptr if none
  Status add_plan(std::vector<int64_t> symbols, std::span<const Tensor> inputs);
  Result<std::span<const Tensor>> execute(Plan* plan, std::span<const Tensor> inputs,
                                          const BoundAdapter* adapter);
  /// Runs `plan`'s steps (those of cond branches' sub-plans within) on `inputs`; records them
  /// into `profiler` unless null.
  Status run_steps(Plan& plan, const Binding& b, std::span<const Tensor> inputs, Profiler* profiler,
                   bool write_back = true, const BoundAdapter* adapter = nullptr);
  /// Runs kernel step `step` with `node`'s low-rank update around it.
  Status run_lora_step(PlanStep& step, const LoraNode& node);
  /// `step`'s kernel without its fused activation, prepared like it (PlanStep::lora_twin).
  Status prepare_lora_twin(PlanStep& step);
  /// Runs the probe for `inputs` and binds the data-dependent ints in `symbols`
  /// (runtime/exec/data_dependent.h).
  Status bind_data_dependent_ints(std::span<const Tensor> inputs, std::vector<int64_t>& symbols);
  Status run_step(PlanStep& step, const Binding& b);
  Status run_cond(PlanStep& step, const Binding& b);
  Status run_loop(PlanStep& step, const Binding& b);

  ExecutorOptions options_;
  Binding root_;  // the method's graph and its branches'
  std::shared_ptr<WeightSource> weights_;
  bool resident_ = true;                          // weights_->resident()
  std::list<std::unique_ptr<Plan>> plans_;        // most recently used first
  std::list<std::unique_ptr<Plan>> probe_plans_;  // the probe's (data_dependent.h), same order
  /// Weights and constants uploaded to devices the host cannot address (plan.h).
  DeviceUploads uploads_;
  std::vector<Tensor> outputs_;
  std::vector<std::vector<uint8_t>> held_outputs_;  // outputs that view streamed weights
  uint64_t kernel_calls_ = 0;
  uint64_t loop_copied_bytes_ = 0;
  std::vector<float> lora_scratch_;  // x A^T of the adapted step running (grows, never shrinks)
  Profiler* profiler_ = nullptr;
  uint64_t bind_count_ = 0;  // bumped by every rebind; a plan records the one it matches
  /// A method with a data-dependent probe draws random values from a stream of its own over
  /// options_.random, which replays the probe's draws in the run (kernels/random.h).
  std::unique_ptr<kernels::RandomStream> random_;
};

}  // namespace tir
