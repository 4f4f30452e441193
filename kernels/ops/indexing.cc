// The indexing family of the op catalogue (kernels/ops/catalogue.h): indexing, gathers,
// scatters, masked writes and embedding lookups. Each row: the op, then the dtypes each backend
// implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kIndexingRows[] = {
    {"aten::_embedding_bag",              {kF32},              {}, {}},
    {"aten::_embedding_bag_forward_only", {kF32},              {}, {}},
    {"aten::_unique2",                    kAny,                {}, {}},
    {"aten::embedding",                   {kF32, kF16, kBF16}, {kF32}, {kF32}, {.int8_weight = 1 << 0}},
    {"aten::embedding_bag.padding_idx",   {kF32},              {}, {}},
    {"aten::gather",                      kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::index.Tensor",                kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::index_add",                   kAny,                {}, {}, {.in_place = "aten::index_add_"}},
    {"aten::index_add_",                  kAny,                {}, {}},
    {"aten::index_copy",                  kAny,                {}, {}, {.in_place = "aten::index_copy_", .all_dtypes = true}},
    {"aten::index_copy_",                 kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::index_fill.int_Scalar",       kAny,                {}, {}, {.in_place = "aten::index_fill_.int_Scalar"}},
    {"aten::index_fill.int_Tensor",       kAny,                {}, {}, {.in_place = "aten::index_fill_.int_Tensor"}},
    {"aten::index_fill_.int_Scalar",      kAny,                {}, {}},
    {"aten::index_fill_.int_Tensor",      kAny,                {}, {}},
    {"aten::index_put",                   kAny,                {}, {}, {.in_place = "aten::index_put_", .all_dtypes = true}},
    {"aten::index_put_",                  kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::index_select",                kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::masked_fill.Scalar",          {kI32, kI64, kF32, kF64, kBool}, {}, {}},
    {"aten::masked_fill.Tensor",          {kI32, kI64, kF32, kF64, kBool}, {}, {}},
    {"aten::masked_scatter",              kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::masked_select",               kAny,                {}, {}},
    {"aten::nonzero",                     kAny,                {}, {}},
    {"aten::bincount",                    kAny,                {}, {}},
    {"aten::repeat_interleave.Tensor",    {kI64},              {}, {}},
    {"aten::repeat_interleave.self_Tensor", kAny,              {}, {}},
    {"aten::scatter.src",                 kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::scatter.value",               kAny,                {}, {}},
    {"aten::scatter_add",                 kAny,                {}, {}},
    {"aten::scatter_reduce.two",          kAny,                {}, {}},
    {"aten::select_scatter",              kAny,                {}, {}, {.all_dtypes = true}},
    {"aten::slice_scatter",               kAny,                {}, {}, {.all_dtypes = true}},
};
// clang-format on

}  // namespace

std::span<const OpRow> indexing_rows() { return kIndexingRows; }

}  // namespace tir::kernels::ops
