// Plan: an ExecGraph prepared for one symbol binding. Building one evaluates the symbolic
// arguments, lets every kernel `prepare` (validate, infer shapes, build primitives, pack
// weights), checks the inferred shapes against the program's, computes each value's lifetime
// and each weight's first and last use, and places all activations and scratch in one arena
// per device (greedy by size, runtime/passes/memory_planner.h). The executor caches plans by
// binding and walks a plan's steps to run it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "core/precision.h"
#include "kernels/kernel.h"
#include "kernels/packed_cache.h"
#include "runtime/devices/device.h"
#include "runtime/exec/device_uploads.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/weights/host_tensor.h"

namespace tir {

class WeightSet;
class LoraActivation;

struct CondPlan;
struct LoopPlan;

struct PlanStep {
  StepKind kind = StepKind::kKernel;
  const ExecNode* node = nullptr;
  Device* device = nullptr;
  std::unique_ptr<kernels::Kernel> kernel;  // kKernel
  std::unique_ptr<CondPlan> cond;           // kCond: its branches' sub-plans
  std::unique_ptr<LoopPlan> loop;           // kLoop: its subgraphs' sub-plans and loop state
  Device* copy_from = nullptr;              // kCopy: the source value's device
  /// kCopy of a weight or constant to a device the host cannot address: its output is the
  /// copy uploaded once (runtime/exec/device_uploads.h) and the step does nothing at run time.
  bool uploaded = false;
  std::vector<kernels::Arg> args;
  std::vector<std::vector<int64_t>> int_store;  // backing for spans not in the graph
  std::vector<Tensor> inputs, outputs;
  std::vector<int32_t> in_values, out_values;  // value ids (in_values == node->inputs)
  std::vector<kernels::WeightKey> input_keys;
  std::vector<const kernels::QuantizedWeight*> input_quantized;
  /// What `call.weights` points at (over input_keys and input_quantized); on the heap, so
  /// the pointer stays valid when the step moves.
  std::unique_ptr<kernels::WeightServices> weights = std::make_unique<kernels::WeightServices>();
  kernels::PrepareInfo info;
  kernels::KernelCall call;
  uint8_t* scratch = nullptr;
  size_t scratch_offset = 0;
  /// Weights to acquire before this step / release after it (first and last use in the
  /// method), for sources that are not resident.
  std::vector<std::pair<WeightId, int32_t>> acquire;  // (weight, value)
  std::vector<WeightId> release;
  /// A fused GEMM's kernel without its activation, made on the first run with a LoRA adapter
  /// that updates it (runtime/exec/lora_step.h); null until then.
  std::unique_ptr<kernels::Kernel> lora_twin;
  std::shared_ptr<LoraActivation> lora_activation;  // its activation, run after the update
};

/// One device's arena.
struct Arena {
  Device* device = nullptr;
  void* data = nullptr;
  size_t bytes = 0;
  Arena() = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() {
    if (data) device->free(data);
  }
};

struct Plan {
  const ExecGraph* graph = nullptr;  // what the plan runs: a method's graph or a cond branch's
  std::vector<int64_t> symbols;      // every symbol's value, those the kernels derived included
  std::vector<int64_t> key;          // the binding the plan was built for (its cache key)
  uint64_t bind_count = 0;           // the executor's weight binding when the pointers were set
  std::vector<PlanStep> steps;
  std::vector<Tensor> values;                  // dtype and shape of every value under this binding
  std::vector<void*> value_data;               // data of every value (aliases filled while running)
  std::vector<std::unique_ptr<Arena>> arenas;  // per device that holds values or scratch
  size_t arena_bytes = 0;                      // all devices together
  /// The weights the steps acquire, in order (what a streaming source reads ahead).
  std::vector<WeightId> weight_order;
  /// Outputs (indices into the graph's outputs) that view a weight's bytes: a run that
  /// streams weights copies them out before it gives the weights back.
  std::vector<size_t> weight_outputs;
};

/// A cond step's branches (runtime/exec/control_flow.h): sub-plans owned by the enclosing plan's
/// step, built under its binding. A symbolic predicate (`s0 > 4`) is known once shapes are
/// bound, so only the taken branch has a plan; a tensor predicate is read at run time, so
/// both do.
struct CondPlan {
  int taken = -1;           // 0 (true_fn) or 1 (false_fn) when the predicate is symbolic
  int64_t pred_input = -1;  // else: the step input that holds the predicate tensor
  std::array<int32_t, 2> graphs{-1, -1};  // the branches' subgraph indices (Method.subgraphs)
  std::vector<int64_t> operand_inputs;    // the step inputs passed to the branch, in order
  std::vector<Tensor> operands;           // their dtypes and shapes; data set per run
  std::array<std::unique_ptr<Plan>, 2> branches;
};

/// A loop step's subgraphs and state (runtime/exec/loops.h): sub-plans owned by the enclosing
/// plan's step, built under its binding.
struct LoopPlan {
  enum class Kind : uint8_t { kWhile, kScan, kMap };
  Kind kind = Kind::kMap;
  std::string_view op;                    // for messages
  std::array<int32_t, 2> graphs{-1, -1};  // while: cond_fn, body_fn; scan, map: the body
  std::array<std::unique_ptr<Plan>, 2> plans;
  /// Step input slots: the carried state (while's carried, scan's init), the sliced xs and
  /// the inputs every iteration reads unchanged.
  std::vector<int64_t> carried, xs, extra;
  int64_t length = 0;                            // scan and map: iterations (dim 0 of every xs)
  std::vector<Tensor> operands;                  // the subgraphs' inputs; data set per iteration
  std::array<std::vector<HostTensor>, 2> state;  // the carried state, twice
  /// Per body output: the body value computed straight into the output's place each
  /// iteration (its memory pointed there), or -1: copied there after the body runs.
  std::vector<int32_t> direct;
  std::vector<void*> targets;  // per body output: its place this iteration
  uint64_t copied_bytes = 0;   // copied so far (what the body could not compute in place)
};

/// What building a plan reads besides the graph.
struct PlanInputs {
  const ExecGraph* graph = nullptr;
  std::span<const std::shared_ptr<Device>> devices;
  /// Per value: the bytes of weights, constants and state buffers; nullptr otherwise.
  std::span<void* const> fixed_data;
  /// Per value: the weight's key (invalid for everything else).
  std::span<const kernels::WeightKey> keys;
  std::span<const kernels::QuantizedWeight* const> quantized;  // per value; empty: none
  kernels::PackedCache* packed_cache = nullptr;
  /// Resident weights: after a step's prepare, the mapped pages of the weights its kernel
  /// packed (PrepareInfo::packed_inputs) are dropped (WeightSet::drop_pages), so a packed
  /// weight is not held twice. Null: nothing is dropped.
  const WeightSet* drop_packed = nullptr;
  /// Makes an int8-stored weight value's float32 bytes (bound without them: its readers'
  /// rows say their kernels read the int8 storage, OpCaps::int8_weight) for a kernel that
  /// asks for them after all (PrepareInfo::needs_float_inputs); returns them.
  std::function<Result<void*>(int32_t value)> dequantize;
  Precision precision = Precision::kFloat32;
  kernels::RandomStream* random = nullptr;  // KernelCall::random
  /// Per Method.subgraphs entry (cond branches): what building their sub-plans reads.
  std::vector<PlanInputs> subgraphs;
  /// Where copies of weights and constants to other devices are uploaded once; null: they
  /// are copied on every run.
  DeviceUploads* uploads = nullptr;
};

/// Builds the plan of `in.graph` for `symbols`; `inputs` give the user inputs' dtypes and
/// shapes. Errors name the node (a kernel's prepare error, a shape that disagrees with the
/// program) or the device (memory).
Result<std::unique_ptr<Plan>> plan_build(const PlanInputs& in, std::vector<int64_t> symbols,
                                         std::span<const Tensor> inputs);

/// Drops the mapped pages of the weights `step`'s kernel packed in its last prepare (see
/// PlanInputs::drop_packed).
void plan_drop_packed(const PlanInputs& in, const PlanStep& step);
/// Prepares `step`'s kernel into `info`; where it needs an int8-stored weight's float32 bytes
/// (PrepareInfo::needs_float_inputs), makes them (in.dequantize), puts them in its inputs and
/// in `value_data`, and prepares it again.
Status plan_prepare_kernel(const PlanInputs& in, PlanStep& step, kernels::PrepareInfo* info,
                           std::span<void*> value_data);

/// What prepare sees as value `v`'s bytes: weights and constants (a kernel may pack them);
/// nullptr for activations and the buffers the method mutates.
void* plan_prepare_data(const PlanInputs& in, int32_t v);

/// True when copy step `node` can be served by `in.uploads`: its source is a weight or constant
/// whose bytes are bound, its target device cannot address host memory, and no in-place op
/// writes the copy.
bool plan_copy_uploads_once(const PlanInputs& in, const ExecNode& node);

}  // namespace tir
