// The assertion family of the op catalogue (kernels/ops/catalogue.h): run-time checks a program
// carries: scalar assertions, tensor metadata assertions and range constraints. Each row: the
// op, then the dtypes each backend implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kAssertionRows[] = {
    {"aten::_assert_async",                kAny, {}, {}},
    {"aten::_assert_async.msg",            kAny, {}, {}},
    {"aten::_assert_scalar",               kAny, {}, {}},
    {"aten::_assert_tensor_metadata",      kAny, {}, {}, {.all_dtypes = true}},
    {"aten::_local_scalar_dense",          kAny, {}, {}},
    {"aten::sym_constrain_range_for_size", kAny, {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> assertion_rows() { return kAssertionRows; }

}  // namespace tir::kernels::ops
