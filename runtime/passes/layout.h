// Layout pass: the activations stored channels-last.
//
// oneDNN's convolutions on AVX-512 compute in NHWC (or blocked) layouts; fed plain NCHW, each
// one reorders its input in and its output back out, which costs as much as the convolutions
// themselves in MobileNetV3. This pass picks the values that every kernel touching them can
// take channels-last (KernelCall::channels_last; the OpCaps of their registry entry, asked per
// argument): the producer writes such a value N, H, W, C (its Tensor's strides say so, shape
// stays [N, C, H, W]) and its readers read it in place, so a chain of convolutions never
// reorders between links, nor around a squeeze-excitation block whose global pool
// (adaptive_avg_pool2d, or mean.dim in torch's core IR) and per-channel scale
// (aten::mul.Tensor(scale, x), x as argument 1) read the block's activation.
#pragma once

#include <cstddef>

#include "runtime/passes/exec_graph.h"

namespace tir {

/// Marks ExecValue::channels_last on the values of `graph` (after fusion and copies) that
/// qualify: a rank-4 float32 activation written as output 0 by a node whose kernel accepts
/// channels-last on some argument (a fused group that reshapes its producer's output
/// excepted), read at least once and only through arguments whose kernels accept it
/// channels-last (or as the fused residual of such a kernel), and neither a method output nor
/// a buffer mutation. Returns how many. `def_use` is `graph`'s (exec_graph.h); the overload
/// without builds it.
size_t choose_channels_last(ExecGraph& graph, const DefUse& def_use);
size_t choose_channels_last(ExecGraph& graph);

}  // namespace tir
