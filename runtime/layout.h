// Load-time choice of the activations stored channels-last.
//
// oneDNN's convolutions on AVX-512 compute in NHWC (or blocked) layouts; fed plain NCHW, each
// one reorders its input in and its output back out, which costs as much as the convolutions
// themselves in MobileNetV3. This pass picks the values that every kernel touching them can
// take channels-last (KernelCall::channels_last, Kernel::accepts_channels_last): the producer
// writes such a value N, H, W, C (its Tensor's strides say so, shape stays [N, C, H, W]) and
// its readers read it in place, so a chain of convolutions never reorders between links.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/model.h"

namespace tir {

/// What the pass needs to know about node i of the method, after fusion.
struct LayoutNode {
  const ir::fb::Node* node = nullptr;  // the node that runs here (a fused group's producer)
  bool runs = false;                   // not absorbed into a fused group
  bool channels_last = false;  // its kernel accepts channels-last (input 0, residual, output)
  int32_t output = -1;         // the value it writes as output 0 (a fused group's last value)
  int32_t residual = -1;       // a fused residual it also reads, or -1
};

/// Per value of `method`: true when it is stored channels-last. A value qualifies when it is a
/// rank-4 float32 activation written by a channels-last node, read at least once and only as
/// the activation input (argument 0) or the residual of channels-last nodes, and is neither a
/// method output nor a buffer mutation.
std::vector<bool> choose_channels_last(const ir::fb::Method& method,
                                       std::span<const LayoutNode> nodes);

}  // namespace tir
