// Ops the training IR keeps that are another op with other arguments: the importer writes the
// op tir has a kernel for, so every later stage (passes, kernels) knows one name. Only ops
// without a kernel of their own are renamed (and convolution, when transposed, and
// instance_norm over running statistics).
//   convolution(transposed=True)      -> conv_transpose1d / conv_transpose2d.input /
//                                        conv_transpose3d.input (a kernel of its own, outside
//                                        the convolution fusions and layouts)
//   clamp_min(x, v) / clamp_max(x, v) -> clamp(x, v, None) / clamp(x, None, v)
//   broadcast_to(x, size)             -> expand(x, size)
//   selu(x)                           -> elu(x, 1.6732..., 1.0507..., 1)
//   celu(x, a)                        -> elu(x, a, 1, 1 / a)
//   fliplr(x) / flipud(x)             -> flip(x, [1]) / flip(x, [0])
//   zero(x)                           -> zeros_like(x)
//   sgn(x)                            -> sign(x) (real tensors)
//   square(x)                         -> pow(x, 2)
//   max_pool1d(x, k, s, p, d, ceil)   -> max_pool2d of x as an unbatched image, window 1 x k
//   multiply, divide, subtract, ...   -> mul, div, sub, ... (ATen's other spellings)
//   prims::scalar_tensor(s, dtype?)   -> scalar_tensor(s, dtype?) (xlogy's decomposition)
//   tile(x, dims)                     -> repeat(x, dims padded with 1s to x's rank)
//   new_full(x, size, v, dtype?)      -> full(size, v, dtype or x's dtype)
//   conv1d/2d/3d.padding(.., "same" | "valid", ..) -> conv1d/2d/3d with numbers (symmetric)
//   rrelu(x, lower, upper, training=False) -> leaky_relu(x, (lower + upper) / 2)
//   take_along_dim(x, i, dim)         -> gather(x, dim, i) (no broadcasting between them)
//   instance_norm(.., use_input_stats=False, ..) -> batch_norm(.., training=False, ..) (the
//                                        running statistics of InstanceNorm's
//                                        track_running_stats, in eval)
//   linalg_norm(x, ord?, dim?, ..) / linalg_norm.ord_str(x, "fro", ..) -> linalg_vector_norm
//                                        where it is a vector norm (not the matrix norms)
//   diag(x, k)                        -> diagonal(x, k, 0, 1) (a matrix) /
//                                        diag_embed(x, k, 0, 1) (a vector)
#pragma once

#include <string>
#include <string_view>

#include "importer/program_json.h"

namespace tir::importer {

/// When `*op` (its node inputs `inputs`, torch's serialized {name, arg} list; the graph's
/// `tensor_values` give its tensors' metadata) is renamed: sets `*op` and `*renamed` (the
/// inputs for the new op's schema) and returns true.
bool rename_op(std::string* op, const Json& inputs, const Json& tensor_values, Json* renamed);

/// Whether `op` is one rename_op writes as another (so a functionalized in-place form of it
/// runs too).
bool has_rename(std::string_view op);

}  // namespace tir::importer
