// The creation family of the op catalogue (kernels/ops/catalogue.h): tensors made from sizes and
// values: zeros, ones, full, empty, ranges, fills, identity matrices, evenly spaced values,
// one-hot encodings, random draws (kernels/random.h). Each row: the op, then the dtypes each
// backend implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// Uniform draws take float16/bfloat16 themselves (a float32 draw rounded to them could be 1).
constexpr DTypeSet kAnyHalf = {DType::kUndefined, kF16, kBF16};

// clang-format off
constexpr OpRow kCreationRows[] = {
    {"aten::arange",              kAny, {}, {}},
    {"aten::arange.start",        kAny, {}, {}},
    {"aten::arange.start_step",   kAny, {}, {}},
    {"aten::diag_embed",          kAny, {}, {}, {.all_dtypes = true}},
    {"aten::empty.memory_format", kAny, {}, {}},
    {"aten::empty_like",          kAny, {}, {}},
    {"aten::empty_permuted",      kAny, {}, {}},
    {"aten::empty_strided",       kAny, {}, {}},
    {"aten::eye",                 kAny, {}, {}},
    {"aten::eye.m",               kAny, {}, {}},
    {"aten::fill.Scalar",         kAny, {}, {}},
    {"aten::fill.Tensor",         kAny, {}, {}},
    {"aten::full",                kAny, {}, {}, {.all_dtypes = true}},
    {"aten::full_like",           kAny, {}, {}},
    {"aten::linspace",            kAny, {}, {}},
    {"aten::logspace",            kAny, {}, {}},
    {"aten::new_ones",            kAny, {}, {}},
    {"aten::new_zeros",           kAny, {}, {}},
    {"aten::one_hot",             kAny, {}, {}},
    {"aten::ones",                kAny, {}, {}},
    {"aten::ones_like",           kAny, {}, {}},
    {"aten::rand",                kAnyHalf, {}, {}},
    {"aten::rand_like",           kAnyHalf, {}, {}},
    {"aten::randn",               kAny, {}, {}},
    {"aten::randn_like",          kAny, {}, {}},
    {"aten::randperm",            kAny, {}, {}},
    {"aten::scalar_tensor",       kAny, {}, {}},
    {"aten::zeros",               kAny, {}, {}},
    {"aten::zeros_like",          kAny, {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> creation_rows() { return kCreationRows; }

}  // namespace tir::kernels::ops
