// Shape inference for the splits torch.export keeps whole in the training IR besides split
// and chunk: tensor_split (by indices, by a section count, or by a tensor holding either),
// hsplit, vsplit and dsplit (tensor_split on dim 1, 0 and 2, a section count that must divide
// the dim). Every piece is a window of the input (kernels/shapes/movement/copy.h); any dtype.
// unsafe_split, unsafe_split_with_sizes and unsafe_chunk are split, split_with_sizes and
// chunk under another name, and register those functions.
#pragma once

#include "kernels/kernel.h"
#include "kernels/shapes/movement/copy.h"

namespace tir::kernels {

/// tensor_split.indices(self, SymInt[] indices, int dim=0): the pieces between consecutive
/// indices, each taken as a slice (negative indices count from the end, out-of-range ones
/// clamp, a decreasing pair gives an empty piece).
Result<CopyParams> copy_prepare_tensor_split_indices(const KernelCall& call, PrepareInfo* out_info);
/// tensor_split.sections(self, SymInt sections, int dim=0): `sections` pieces, the first
/// (size % sections) of them one longer.
Result<CopyParams> copy_prepare_tensor_split_sections(const KernelCall& call,
                                                      PrepareInfo* out_info);
/// tensor_split.tensor_indices_or_sections(self, Tensor t, int dim=0): t an int64 tensor
/// whose values are known when the node is prepared (a constant): 0-dim, a section count;
/// 1-D, indices.
Result<CopyParams> copy_prepare_tensor_split_tensor(const KernelCall& call, PrepareInfo* out_info);
/// hsplit / vsplit / dsplit .int(self, int sections) and .array(self, int[] indices).
Result<CopyParams> copy_prepare_hsplit(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_vsplit(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_dsplit(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
