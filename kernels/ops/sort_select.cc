// The sort select family of the op catalogue (kernels/ops/catalogue.h): sorting, top-k
// selection and binary search into sorted values (searchsorted, bucketize). Each row: the op, then
// the dtypes each backend implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kSortSelectRows[] = {
    {"aten::argsort",        kAny, {}, {}},
    {"aten::argsort.stable", kAny, {}, {}},
    {"aten::bucketize.Scalar",    kAny, {}, {}},
    {"aten::bucketize.Tensor",    kAny, {}, {}},
    {"aten::isin.Scalar_Tensor",  kAny, {}, {}},
    {"aten::isin.Tensor_Scalar",  kAny, {}, {}},
    {"aten::isin.Tensor_Tensor",  kAny, {}, {}},
    {"aten::searchsorted.Scalar", kAny, {}, {}},
    {"aten::searchsorted.Tensor", kAny, {}, {}},
    {"aten::sort",        kAny, {}, {}},
    {"aten::sort.stable", kAny, {}, {}},
    {"aten::topk",        kAny, {}, {}},
    // order statistics (kernels/shapes/sort_select/select.h)
    {"aten::kthvalue",       kAny, {}, {}},
    {"aten::median",         kAny, {}, {}},
    {"aten::median.dim",     kAny, {}, {}},
    {"aten::mode",           kAny, {}, {}},
    {"aten::nanmedian",      kAny, {}, {}},
    {"aten::nanmedian.dim",  kAny, {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> sort_select_rows() { return kSortSelectRows; }

}  // namespace tir::kernels::ops
