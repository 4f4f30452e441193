// Which weights `tirc weights pack --dtype int8 --model M` stores as int8 (core/quantize.h),
// read off the model: every 2-D float32 weight that a node of any method reads as the B
// operand of a GEMM, along its output-channel axis: linear's weight [N, K] per row (axis 0),
// addmm's and mm's mat2 [K, N] per column (axis 1); convolution weights [OC, C/groups, KH, KW]
// (conv1d: 3-D) per output channel (axis 0); and embedding tables [V, D], per row
// (dequantized at load: they only make the file smaller). Other tensors (norms, biases,
// position tables read by other ops) stay float32.
#pragma once

#include <map>
#include <string>

#include "core/status.h"

namespace tir::tools {

/// Weight name (and each alias) -> channel axis. A weight read both ways keeps the first.
Result<std::map<std::string, int>> int8_weight_axes(const std::string& model_path);

}  // namespace tir::tools
