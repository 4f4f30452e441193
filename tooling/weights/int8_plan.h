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
#include <vector>

#include "core/status.h"

namespace tir::tools {

/// Weight name (and each alias) -> channel axis. A weight read both ways keeps the first.
Result<std::map<std::string, int>> int8_weight_axes(const std::string& model_path);

/// The weights `--dtype int4` keeps in int8 (names and aliases), as llama.cpp keeps its token
/// embedding and output layer at higher precision: every embedding table, and the B weight of
/// the last GEMM node of each method that reads one (an LM's output projection, lm_head).
Result<std::vector<std::string>> int4_kept_int8_weights(const std::string& model_path);

/// A GEMM node of a method (top level) whose B operand is such a weight: the node's IR
/// index, which of its tensor inputs is the activation A (linear 0, addmm 1, mm 0), the
/// weight's name and aliases, and the input-channel count K (A's last dim).
struct Int8GemmUse {
  int32_t node = 0;
  int a_input = 0;
  std::vector<std::string> weight_names;
  int64_t k = 0;
};
Result<std::vector<Int8GemmUse>> int8_gemm_uses(const std::string& model_path,
                                                const std::string& method);

}  // namespace tir::tools
