// The softmax family of the op catalogue (kernels/ops/catalogue.h): softmax and log-softmax
// along one dimension. Each row: the op, then the dtypes each backend implements (reference,
// cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kSoftmaxRows[] = {
    {"aten::_log_softmax",    {kF32, kF64}, {kF32}, {kF32}},
    {"aten::_softmax",        {kF32, kF64}, {kF32}, {kF32}},
    {"aten::log_softmax.int", {kF32, kF64}, {kF32}, {kF32}, {.promoted = 0b1}},
    {"aten::softmax.int",     {kF32, kF64}, {kF32}, {kF32}, {.promoted = 0b1}},
};
// clang-format on

}  // namespace

std::span<const OpRow> softmax_rows() { return kSoftmaxRows; }

}  // namespace tir::kernels::ops
