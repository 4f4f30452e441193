// Load-time fusion of a GEMM or convolution with the element-wise activation after it.
//
// The IR keeps ATen granularity, so HF GPT-2's NewGELU arrives as eight nodes after each MLP
// addmm, BERT's as `gelu`, MobileNet's hardswish (core IR) as add/clamp/clamp/mul/div. This
// pass finds such groups in a method; the executor then runs the producer with the
// activation as its epilogue (kernels::KernelCall::epilogue, a oneDNN post-op), writing
// straight into the group's last value, and skips the other nodes: no kernel call and no
// memory for the intermediates.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ir/model.h"
#include "kernels/kernel.h"

namespace tir {

/// One producer and the nodes its epilogue replaces.
struct FusedGroup {
  int32_t producer = -1;  // node index of the aten::linear/addmm/mm/convolution/conv2d
  kernels::Activation activation = kernels::Activation::kNone;
  /// The value the producer writes instead of its own output: the group's last value. It
  /// holds as many float32 elements as the producer's output (reshapes such as the `view`
  /// after GPT-2's addmm may sit between them).
  int32_t output = -1;
  std::vector<int32_t> absorbed;  // node indices the group replaces, never run
};

/// Groups of `method` (top level only; a cond branch is a method of its own). A group
/// forms only when every intermediate value is used inside the group alone and is not a
/// method output or a buffer mutation. `accepts(i)`: the kernel resolved for node i applies
/// epilogues (kernels::Kernel::accepts_epilogue).
std::vector<FusedGroup> fusion_find_groups(const ir::fb::Method& method,
                                           const std::function<bool(int32_t)>& accepts);

}  // namespace tir
