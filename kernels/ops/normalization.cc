// The normalization family of the op catalogue (kernels/ops/catalogue.h): batch, layer, group
// and instance normalization and weight normalization. Each row: the op, then the dtypes each
// backend implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kNormalizationRows[] = {
    {"aten::_native_batch_norm_legit",             {kF32}, {},     {}},
    {"aten::_native_batch_norm_legit.no_stats",    {kF32}, {},     {}},
    {"aten::_native_batch_norm_legit_functional",  {kF32}, {},     {}},
    {"aten::_native_batch_norm_legit_no_training", {kF32, kF64}, {kF32}, {}},
    {"aten::_weight_norm",                         {kF32}, {},     {}},
    {"aten::batch_norm",                           {kF32, kF64}, {kF32}, {}},
    {"aten::group_norm",                           {kF32, kF64}, {}, {}},
    {"aten::instance_norm",                        {kF32}, {},     {}},
    {"aten::layer_norm",                           {kF32, kF64}, {kF32}, {kF32}},
    {"aten::native_group_norm",                    {kF32, kF64}, {}, {}},
    {"aten::native_layer_norm",                    {kF32, kF64}, {kF32}, {kF32}},
    {"aten::rms_norm", {kF32, kF64}, {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> normalization_rows() { return kNormalizationRows; }

}  // namespace tir::kernels::ops
