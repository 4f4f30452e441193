// Load-time fusion of a GEMM or convolution with the element-wise activation after it, and of
// a convolution with the inference batch norm after it (folded into its weights and bias).
//
// The IR keeps ATen granularity, so HF GPT-2's NewGELU arrives as eight nodes after each MLP
// addmm, BERT's as `gelu`, MobileNet's hardswish (core IR) as add/clamp/clamp/mul/div. This
// pass finds such groups in a method; the executor then runs the producer with the
// activation as its epilogue (kernels::KernelCall::epilogue, a oneDNN post-op), writing
// straight into the group's last value, and skips the other nodes: no kernel call and no
// memory for the intermediates. ResNet and MobileNet put a batch norm between each conv and
// its relu/hardswish: conv + batch_norm (+ activation) is one group, the conv kernel folds the
// norm's statistics into its packed weights (kernels::KernelCall::batch_norm). ResNet's block
// and MobileNet's inverted residual add an identity to that result (then relu, in ResNet):
// conv (+ batch norm) + add (+ activation) is one group too, the identity an extra input the
// conv adds before its activation (kernels::KernelCall::residual).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "kernels/kernel.h"
#include "runtime/passes/exec_graph.h"

namespace tir {

/// An inference batch norm (aten::batch_norm with training=False, or
/// aten::_native_batch_norm_legit_no_training) absorbed into a convolution producer: the
/// value ids of its tensors, all weights or constants the method never writes (weight and
/// bias -1 when None), and its eps.
struct FusedBatchNorm {
  int32_t weight = -1, bias = -1, mean = -1, var = -1;
  double eps = 0;
  bool present() const { return mean >= 0; }
};

/// One producer and the nodes its epilogue replaces.
struct FusedGroup {
  int32_t producer = -1;  // node index of the aten::linear/addmm/mm/convolution/conv2d
  std::optional<kernels::ops::UnaryKind> activation;  // fusable_as_epilogue; none: no activation
  FusedBatchNorm batch_norm;  // conv producers only; applied before the activation
  /// Conv producers only: the value (the identity) an absorbed aten::add/add_ adds to the conv
  /// (+ batch norm) result before the activation; -1 when none. Same shape, float32.
  int32_t residual = -1;
  /// Node index at which the group runs: the producer's, or the add's when the identity is
  /// computed after the producer (ResNet's downsample path follows conv2 + bn2). No in-place
  /// op runs in between, so the producer's inputs hold the same values there.
  int32_t position = -1;
  /// The value the producer writes instead of its own output: the group's last value. It
  /// holds as many float32 elements as the producer's output (reshapes such as the `view`
  /// after GPT-2's addmm may sit between them).
  int32_t output = -1;
  std::vector<int32_t> absorbed;  // node indices the group replaces, never run
};

/// Groups of `graph` (top level only; a cond branch is a graph of its own). A group
/// forms only when every intermediate value is used inside the group alone and is not a
/// method output or a buffer mutation; no node belongs to two groups. `accepts(i)`: the kernel
/// resolved for node i applies epilogues (its registry entry's OpCaps). `frozen(v)`: value v
/// is a weight or constant the method never writes (a batch norm folds only such tensors, with such
/// conv weights). `def_use`: the def-use index of `graph` (exec_graph.h).
std::vector<FusedGroup> fusion_find_groups(const ExecGraph& graph, const DefUse& def_use,
                                           const std::function<bool(int32_t)>& accepts,
                                           const std::function<bool(int32_t)>& frozen);

/// The fusion pass: each group's producer becomes a fused node (its epilogue, folded batch
/// norm and residual are attributes and inputs of that node, it writes the group's last
/// value, it moves to the group's position) and the nodes it absorbed are marked dead.
/// Nodes must have their kernels (placement) first. Returns the number of groups. `def_use`
/// is `graph`'s before the pass (stale after it when groups formed); the overload without
/// builds it.
size_t fuse_graph(ExecGraph& graph, const DefUse& def_use);
size_t fuse_graph(ExecGraph& graph);

}  // namespace tir
