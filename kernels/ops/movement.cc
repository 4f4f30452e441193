// The movement family of the op catalogue (kernels/ops/catalogue.h): views and data movement:
// reshapes, permutations, slices, concatenation and splits, padding, repetition, copies and
// dtype or device casts. Each row: the op, then the dtypes each backend implements (reference,
// cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kMovementRows[] = {
    {"aten::_to_copy",           kAny, {}, {}, {.all_dtypes = true}},
    {"aten::_unsafe_view",       kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::alias",              kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::as_strided",         kAny, {}, {}, {.all_dtypes = true}},
    {"aten::broadcast_tensors",  kAny, {}, {}, {.all_dtypes = true}},
    {"aten::cat",                kAny, {}, {kF32}, {.promoted = 0b1, .all_dtypes = true}},
    {"aten::channel_shuffle",   kAny, {}, {}, {.all_dtypes = true}},
    {"aten::chunk",              kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::clone",              kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::constant_pad_nd",    kAny, {}, {}, {.all_dtypes = true}},
    {"aten::contiguous",         kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::copy",               kAny, {}, {}, {.in_place = "aten::copy_"}},
    {"aten::copy_",              kAny, {}, {}},
    {"aten::detach",             kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::diagonal",           kAny, {}, {}, {.all_dtypes = true}},
    {"aten::dsplit.array", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::dsplit.int", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::expand",             kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::expand_as",          kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::flatten.using_ints", kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::flip",               kAny, {}, {}, {.all_dtypes = true}},
    {"aten::hsplit.array", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::hsplit.int", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::lift_fresh_copy",    kAny, {}, {}, {.all_dtypes = true}},
    {"aten::meshgrid",           kAny, {}, {}, {.all_dtypes = true}},
    {"aten::meshgrid.indexing",  kAny, {}, {}, {.all_dtypes = true}},
    {"aten::movedim.int",        kAny, {}, {}, {.all_dtypes = true}},
    {"aten::narrow",             kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::native_channel_shuffle", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::numpy_T",            kAny, {}, {}, {.all_dtypes = true}},
    {"aten::pad",                kAny, {}, {}},
    {"aten::pad_sequence",       kAny, {}, {},     {.all_dtypes = true}},
    {"aten::permute",            kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::pixel_shuffle",      kAny, {}, {}, {.all_dtypes = true}},
    {"aten::pixel_unshuffle",    kAny, {}, {}, {.all_dtypes = true}},
    {"aten::reflection_pad1d",   kAny, {}, {}, {.all_dtypes = true}},
    {"aten::reflection_pad2d",   kAny, {}, {}, {.all_dtypes = true}},
    {"aten::reflection_pad3d",   kAny, {}, {}, {.all_dtypes = true}},
    {"aten::repeat",             kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::repeat_interleave.self_int", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::replication_pad1d",  kAny, {}, {}, {.all_dtypes = true}},
    {"aten::replication_pad2d",  kAny, {}, {}, {.all_dtypes = true}},
    {"aten::replication_pad3d",  kAny, {}, {}, {.all_dtypes = true}},
    {"aten::reshape",            kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::reshape_as", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::roll",               kAny, {}, {}, {.all_dtypes = true}},
    {"aten::rot90",             kAny, {}, {}, {.all_dtypes = true}},
    {"aten::select.int",         kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::slice.Tensor",       kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::split.Tensor",       kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::split_with_sizes",   kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::squeeze",            kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::squeeze.dim",        kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::squeeze.dims",       kAny, {}, {}, {.all_dtypes = true}},
    {"aten::stack",              kAny, {}, {kF32}, {.promoted = 0b1, .all_dtypes = true}},
    {"aten::swapaxes",           kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::t",                  kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::tensor_split.indices", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::tensor_split.sections", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::tensor_split.tensor_indices_or_sections", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::to.device",          kAny, {}, {}, {.all_dtypes = true}},
    {"aten::to.dtype",           kAny, {}, {}, {.all_dtypes = true}},
    {"aten::to.dtype_layout",    kAny, {}, {}, {.all_dtypes = true}},
    {"aten::transpose.int",      kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::type_as",            kAny, {}, {}, {.all_dtypes = true}},
    {"aten::unbind.int",         kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::unfold", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::unflatten.int",      kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::unsafe_chunk", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::unsafe_split.Tensor", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::unsafe_split_with_sizes", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::unsqueeze",          kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::view",               kAny, {}, {kF32}, {.all_dtypes = true}},
    {"aten::view_as", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::vsplit.array", kAny, {}, {}, {.all_dtypes = true}},
    {"aten::vsplit.int", kAny, {}, {}, {.all_dtypes = true}},
};
// clang-format on

}  // namespace

std::span<const OpRow> movement_rows() { return kMovementRows; }

}  // namespace tir::kernels::ops
