// The movement family of the op catalogue (kernels/ops/catalogue.h): views and data movement:
// reshapes, permutations, slices, concatenation and splits, padding, repetition, copies and
// dtype or device casts. Each row: the op, then the dtypes each backend implements (reference,
// cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kRows[] = {
    {"aten::_to_copy",           kAny, {}, {}},
    {"aten::_unsafe_view",       kAny, {}, {kF32}},
    {"aten::alias",              kAny, {}, {kF32}},
    {"aten::as_strided",         kAny, {}, {}},
    {"aten::cat",                kAny, {}, {kF32}},
    {"aten::chunk",              kAny, {}, {kF32}},
    {"aten::clone",              kAny, {}, {kF32}},
    {"aten::constant_pad_nd",    kAny, {}, {}},
    {"aten::contiguous",         kAny, {}, {kF32}},
    {"aten::copy",               kAny, {}, {}, {.in_place = "aten::copy_"}},
    {"aten::copy_",              kAny, {}, {}},
    {"aten::detach",             kAny, {}, {kF32}},
    {"aten::diagonal",           kAny, {}, {}},
    {"aten::expand",             kAny, {}, {kF32}},
    {"aten::expand_as",          kAny, {}, {kF32}},
    {"aten::flatten.using_ints", kAny, {}, {kF32}},
    {"aten::flip",               kAny, {}, {}},
    {"aten::lift_fresh_copy",    kAny, {}, {}},
    {"aten::narrow",             kAny, {}, {kF32}},
    {"aten::numpy_T",            kAny, {}, {}},
    {"aten::pad",                kAny, {}, {}},
    {"aten::movedim.int",        kAny, {}, {}},
    {"aten::permute",            kAny, {}, {kF32}},
    {"aten::pixel_shuffle",      kAny, {}, {}},
    {"aten::pixel_unshuffle",    kAny, {}, {}},
    {"aten::reflection_pad1d",   kAny, {}, {}},
    {"aten::reflection_pad2d",   kAny, {}, {}},
    {"aten::reflection_pad3d",   kAny, {}, {}},
    {"aten::repeat",             kAny, {}, {kF32}},
    {"aten::repeat_interleave.self_int", kAny, {}, {}},
    {"aten::replication_pad1d",  kAny, {}, {}},
    {"aten::replication_pad2d",  kAny, {}, {}},
    {"aten::replication_pad3d",  kAny, {}, {}},
    {"aten::reshape",            kAny, {}, {kF32}},
    {"aten::roll",               kAny, {}, {}},
    {"aten::select.int",         kAny, {}, {kF32}},
    {"aten::slice.Tensor",       kAny, {}, {kF32}},
    {"aten::split.Tensor",       kAny, {}, {kF32}},
    {"aten::split_with_sizes",   kAny, {}, {kF32}},
    {"aten::squeeze",            kAny, {}, {kF32}},
    {"aten::squeeze.dim",        kAny, {}, {kF32}},
    {"aten::squeeze.dims",       kAny, {}, {}},
    {"aten::stack",              kAny, {}, {kF32}},
    {"aten::swapaxes",           kAny, {}, {kF32}},
    {"aten::t",                  kAny, {}, {kF32}},
    {"aten::to.device",          kAny, {}, {}},
    {"aten::to.dtype",           kAny, {}, {}},
    {"aten::to.dtype_layout",    kAny, {}, {}},
    {"aten::transpose.int",      kAny, {}, {kF32}},
    {"aten::type_as",            kAny, {}, {}},
    {"aten::unbind.int",         kAny, {}, {kF32}},
    {"aten::unflatten.int",      kAny, {}, {kF32}},
    {"aten::unsqueeze",          kAny, {}, {kF32}},
    {"aten::view",               kAny, {}, {kF32}},
};
// clang-format on

}  // namespace

std::span<const OpRow> movement_rows() { return kRows; }

}  // namespace tir::kernels::ops
