// LoRA adapters at run time: an adapter (runtime/weights/lora_adapter.h) bound to a lowered
// method, and the arithmetic the executor runs around each GEMM it adapts.
//
// A GEMM node is adaptable when it is aten::linear (x, W[N, K]), aten::addmm (c, x, W[K, N]),
// aten::mm (x, W[K, N]) or aten::matmul (x, W[K, N]) with W a model weight or a transpose of one
// (permute, t, transpose: the core IR's linear when the fusion passes are off, which otherwise
// turn it back into aten::linear, runtime/passes/linear_rewrite.h). Around such a node
// the executor computes t = x A^T before the kernel (x may share memory with the output, so it
// is read first) and y += t (s B^T) after it; a node fused with an activation runs, for that
// run only, an instance of its kernel without the activation, then the update, then the
// activation (kernels/epilogue.h). The base weights and every shared structure stay untouched:
// a run's adapter is a pointer the run carries, so threads run different adapters at once.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "ir/model.h"
#include "runtime/devices/device.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/weights/lora_adapter.h"
#include "runtime/weights/weight_source.h"

namespace tir {

/// One adapted node: its update and which of its inputs is x.
struct LoraNode {
  const LoraUpdate* update = nullptr;
  int x_input = 0;
};

class BoundAdapter {
 public:
  /// Binds `adapter` to `graph` (the method lowered once per session) over the weights `set`:
  /// every update must name the weight operand of at least one adaptable GEMM node, else an
  /// error naming the adapter file, the module and the method. `replacements`: the adapter's
  /// modules_to_save bound over `set` (WeightSet::overlay), null when it has none.
  static Result<std::shared_ptr<const BoundAdapter>> bind(
      std::string name, std::shared_ptr<const LoraAdapter> adapter, const ExecGraph& graph,
      const ir::fb::Model& model, const WeightSet& set, std::shared_ptr<WeightSource> replacements);

  const std::string& name() const { return name_; }
  const std::shared_ptr<const LoraAdapter>& adapter() const { return adapter_; }
  /// The update applied around node `i` of the graph (its position in ExecGraph::nodes).
  const LoraNode* at(size_t i) const {
    return i < by_node_.size() && by_node_[i] >= 0 ? &nodes_[size_t(by_node_[i])] : nullptr;
  }
  size_t num_nodes() const { return nodes_.size(); }
  /// The weights runs with this adapter read: the session's with the modules_to_save
  /// replaced; null when the adapter replaces none (the session's own serve).
  const std::shared_ptr<WeightSource>& replacements() const { return replacements_; }

 private:
  std::string name_;
  std::shared_ptr<const LoraAdapter> adapter_;
  std::vector<int32_t> by_node_;  // per graph node: index into nodes_, or -1
  std::vector<LoraNode> nodes_;
  std::shared_ptr<WeightSource> replacements_;
};

/// The activation a fused GEMM applies (KernelCall::epilogue), as the device's own kernel for
/// that op run in place on the GEMM's output: what a GEMM run without it (for a LoRA update in
/// between) applies afterwards. Made once per plan step, on the first adapted run.
class LoraActivation {
 public:
  /// Null (and OK) when `device` has no kernel for `act`'s op: then kernels::apply_activation.
  static Result<std::shared_ptr<LoraActivation>> make(kernels::ops::UnaryKind act, Device& device,
                                                      const Tensor& y);
  /// Applies it to `y` (the tensor make() saw, at `data`).
  Status run(void* data);

 private:
  std::unique_ptr<kernels::Kernel> kernel_;
  std::array<kernels::Arg, 2> args_;
  std::array<Tensor, 1> in_, out_;
  kernels::KernelCall call_;
};

/// x's row count for `node`'s update: x (float32, contiguous) holds rows of K floats and y
/// (outputs[0]) as many rows of N; an error naming the node otherwise.
Result<int64_t> lora_rows(const LoraNode& node, const Tensor& x, const Tensor& y,
                          std::string_view node_name);
/// t[rows, r] = x[rows, K] A^T.
void lora_down(const LoraUpdate& u, const float* x, int64_t rows, float* t);
/// y[rows, N] += t[rows, r] (s B^T).
void lora_up(const LoraUpdate& u, const float* t, int64_t rows, float* y);

}  // namespace tir
