// LoweredMethod: one method of a model lowered (runtime/passes/exec_graph.h) and taken through
// every load-time pass, once: the quantized-linear rewrite (quant_rewrite.h), placement and kernel
// resolution (placement.h), fusion (fusion.h), copies between devices, channels-last layout
// (layout.h) and dead-node removal; each cond branch is lowered the same way. It depends on
// the model, the method and LoweringOptions only, never on weights or input shapes, and is
// immutable once built: a Session lowers its method once per open and every thread's
// MethodExecutor (runtime/exec/executor.h) shares the result, reading it without locks, and keeps
// only what is per thread (plans, arenas, bound weight pointers, profiler).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "ir/model.h"
#include "runtime/devices/device.h"
#include "runtime/exec/data_dependent.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/passes/last_position.h"
#include "runtime/passes/placement.h"
#include "runtime/weights/weight_source.h"

namespace tir {

/// What lowering depends on besides the model and the method.
struct LoweringOptions {
  /// Run the quantized-linear rewrite, fusion and layout passes (off: every node runs on its
  /// own, in plain layouts).
  bool fuse = true;
  /// Where nodes may run; devices[0] holds inputs and outputs. Empty: cpu_device().
  std::vector<std::shared_ptr<Device>> devices;
  PlacementPolicy placement;  // unset: everything on devices[0]; called once per node
  /// Outputs of which only the last position is computed (the method, not its subgraphs).
  std::vector<LastPosition> last_position;
};

class LoweredMethod {
 public:
  /// Lowers `method` of `model` and runs the passes. `model` must outlive the result. Errors
  /// name the node (an argument the runtime cannot decode, an op no device has a kernel for).
  static Result<std::shared_ptr<const LoweredMethod>> create(const ir::ModelView& model,
                                                             const ir::fb::Method& method,
                                                             const LoweringOptions& options);

  const ir::ModelView& model() const { return *model_; }
  const ir::fb::Method& method() const { return *graph_.method; }
  /// The graph after all passes (its nodes' `index` are the IR's).
  const ExecGraph& graph() const { return graph_; }
  /// The devices the nodes were placed on (never empty; [0] holds inputs and outputs).
  const std::vector<std::shared_ptr<Device>>& devices() const { return devices_; }
  /// One per Method.subgraphs entry (cond branches), lowered with the same options.
  const std::vector<std::shared_ptr<const LoweredMethod>>& subgraphs() const { return subgraphs_; }
  /// Per node of graph(): the weights it reads (not the buffers the method writes), what a
  /// budgeted weight source checks (WeightSource::check_uses).
  std::span<const NodeWeights> weight_uses() const { return weight_uses_; }
  /// Per value: every node reading it (none, or some) takes it through an argument its
  /// kernel may read from an int8 storage alone (OpCaps::int8_weight of the kernel placed
  /// there), and it is not a method output: an int8-stored weight is then bound without its
  /// float32 dequantization.
  bool int8_readers_only(int32_t v) const { return int8_readers_only_[size_t(v)]; }
  /// Nodes of the method in the IR (before the passes).
  size_t num_nodes() const;
  /// Copy steps placement inserted between devices, those in cond branches included.
  size_t num_copies() const;
  /// What binds the method's data-dependent ints (`x.item()`) before a run is planned
  /// (runtime/exec/data_dependent.h); null when it has none.
  const DataDependentProbe* probe() const { return probe_.get(); }

 private:
  LoweredMethod() = default;
  Status run_passes(const LoweringOptions& options);

  const ir::ModelView* model_ = nullptr;
  ExecGraph graph_;
  std::vector<std::shared_ptr<Device>> devices_;
  std::vector<std::shared_ptr<const LoweredMethod>> subgraphs_;
  std::vector<NodeWeights> weight_uses_;
  std::vector<bool> int8_readers_only_;  // per value
  size_t num_copies_ = 0;                // this graph's own
  std::unique_ptr<DataDependentProbe> probe_;
};

}  // namespace tir
