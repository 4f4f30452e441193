// Shared shape inference for data-movement ops whose outputs are strided windows of their
// inputs: slice, select, narrow, split, chunk, unbind, cat, stack, meshgrid, expand, repeat,
// transpose, squeeze, flip, roll, rot90, channel_shuffle. Every one becomes a list of `CopyRegion`s
// (a strided copy from one input into one output); the output of a view op (in torch) that is
// exactly its input's bytes is aliased instead (PrepareInfo::output_alias) and gets no region;
// cat, stack, repeat, roll and flip always copy, as torch does, so that an in-place write to
// the input never reaches them. Any dtype.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/kernel.h"

namespace tir::kernels {

/// repeat needs two virtual dims per real dim.
inline constexpr int kMaxCopyRank = 2 * kMaxRank;

/// out[out_offset + sum(i_d * out_strides[d])] = in[in_offset + sum(i_d * in_strides[d])]
/// for every index i in `sizes`. Strides are in elements and may be 0 (broadcast) or
/// negative (flip). Dims are coalesced at prepare so the innermost run is as long as possible.
struct CopyRegion {
  int input = -1;  // index into KernelCall::inputs
  int output = 0;  // index into KernelCall::outputs
  int64_t in_offset = 0, out_offset = 0;
  int rank = 0;
  std::array<int64_t, kMaxCopyRank> sizes{};
  std::array<int64_t, kMaxCopyRank> in_strides{};
  std::array<int64_t, kMaxCopyRank> out_strides{};
};

struct CopyParams {
  size_t elem_size = 0;
  std::vector<CopyRegion> regions;
  /// When not empty: one element's bytes output 0 is filled with before the regions are copied
  /// (pad_sequence's padding).
  std::vector<uint8_t> fill;
};

Result<CopyParams> copy_prepare_slice(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_select(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_narrow(const KernelCall& call, PrepareInfo* out_info);
/// split.Tensor(self, split_size, dim): call.outputs.size() must equal the piece count.
Result<CopyParams> copy_prepare_split(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_split_with_sizes(const KernelCall& call, PrepareInfo* out_info);
/// Piece k of `x` along `dim` is [starts[k], starts[k] + lengths[k]) (in range), written to
/// output k (or aliased when it is all of x); the splits share it
/// (kernels/shapes/movement/tensor_split.h).
Result<CopyParams> copy_split_slices(const KernelCall& call, PrepareInfo* info, const Tensor& x,
                                     int dim, std::span<const int64_t> starts,
                                     std::span<const int64_t> lengths);
Result<CopyParams> copy_prepare_chunk(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_unbind(const KernelCall& call, PrepareInfo* out_info);
/// pad_sequence(sequences, batch_first, padding_value, padding_side): the sequences (one
/// dtype, equal trailing dims) stacked along a new batch dim (0 with batch_first, else 1),
/// each padded along its first dim to the longest, at the end ("right") or the start ("left").
Result<CopyParams> copy_prepare_pad_sequence(const KernelCall& call, PrepareInfo* out_info);
/// cat(tensors, dim): same dtype required (no type promotion); legacy [0] inputs skipped.
Result<CopyParams> copy_prepare_cat(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_stack(const KernelCall& call, PrepareInfo* out_info);
/// rot90(self, k=1, dims=[0, 1]): k quarter turns from dims[0] towards dims[1].
Result<CopyParams> copy_prepare_rot90(const KernelCall& call, PrepareInfo* out_info);
/// channel_shuffle(self, groups) and native_channel_shuffle: [N, C, *] as [N, g, C / g, *]
/// with the two channel dims swapped.
Result<CopyParams> copy_prepare_channel_shuffle(const KernelCall& call, PrepareInfo* out_info);
/// meshgrid(tensors) and meshgrid.indexing(tensors, *, indexing): 0-D/1-D inputs, one
/// output each, broadcast over the grid ("ij"; "xy" trades the first two dims).
Result<CopyParams> copy_prepare_meshgrid(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_meshgrid_indexing(const KernelCall& call, PrepareInfo* out_info);
/// broadcast_tensors(tensors): each input broadcast to the shape of them all, one output each
/// (one dtype, as meshgrid).
Result<CopyParams> copy_prepare_broadcast_tensors(const KernelCall& call, PrepareInfo* out_info);
/// expand(self, size, implicit): broadcast dims are materialised (outputs are contiguous).
Result<CopyParams> copy_prepare_expand(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_expand_as(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_repeat(const KernelCall& call, PrepareInfo* out_info);
/// repeat_interleave.self_int(self, repeats, dim?, *, output_size?); by a repeats tensor
/// (.self_Tensor, .Tensor) the output size depends on its values:
/// kernels/shapes/indexing/data_dependent.h.
Result<CopyParams> copy_prepare_repeat_interleave(const KernelCall& call, PrepareInfo* out_info);
/// transpose.int(self, dim0, dim1) and swapaxes(self, axis0, axis1).
Result<CopyParams> copy_prepare_transpose(const KernelCall& call, PrepareInfo* out_info);
/// squeeze(self) drops every size-1 dim; squeeze.dims(self, dims) the listed ones of size 1.
Result<CopyParams> copy_prepare_squeeze(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_squeeze_dims(const KernelCall& call, PrepareInfo* out_info);
Result<CopyParams> copy_prepare_flip(const KernelCall& call, PrepareInfo* out_info);
/// roll(self, shifts, dims): empty dims rolls the flattened tensor.
Result<CopyParams> copy_prepare_roll(const KernelCall& call, PrepareInfo* out_info);

}  // namespace tir::kernels
