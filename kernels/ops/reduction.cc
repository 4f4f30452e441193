// The reduction family of the op catalogue (kernels/ops/catalogue.h): reductions over dimensions
// and scans along one: sums, means, extrema and their indices, variance, logical any/all,
// cumulative sums, products, log-sum-exps, extrema and differences. Each row: the op, then the
// dtypes each backend implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kReductionRows[] = {
    {"aten::all",             kAny,                      {},     {}},
    {"aten::all.dim",         kAny,                      {},     {}},
    {"aten::all.dims",        kAny,                      {},     {}},
    {"aten::amax",            {kI32, kI64, kF32, kF64, kBool}, {},     {}},
    {"aten::amin",            kAny,                      {},     {}},
    {"aten::aminmax",         kAny,                      {},     {}},
    {"aten::any",             kAny,                      {},     {}},
    {"aten::any.dim",         {kI32, kI64, kF32, kF64, kBool}, {},     {}},
    {"aten::any.dims",        kAny,                      {},     {}},
    {"aten::argmax",          kAny,                      {},     {}},
    {"aten::argmin",          kAny,                      {},     {}},
    {"aten::count_nonzero",   kAny,                      {},     {}},
    {"aten::count_nonzero.dim_IntList", kAny,            {},     {}},
    {"aten::cummax",          kAny,                      {},     {}},
    {"aten::cummin",          kAny,                      {},     {}},
    {"aten::cumprod",         kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::cumsum",          kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::diff",            {kI64, kF32, kF64},        {},     {}},
    {"aten::histc",           {kF32},                    {},     {}},
    {"aten::linalg_vector_norm", kAny, {}, {}},
    {"aten::logcumsumexp",    kAny,                      {},     {}},
    {"aten::logsumexp", kAny, {}, {}},
    {"aten::max",             kAny,                      {},     {}},
    {"aten::max.dim",         kAny,                      {},     {}},
    {"aten::mean",            kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::mean.dim",        {kF32, kF64},              {kF32}, {}, {.channels_last = 0b1, .promoted = 0b1}},
    {"aten::min",             kAny,                      {},     {}},
    {"aten::min.dim",         kAny,                      {},     {}},
    {"aten::prod",            kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::prod.dim_int",    kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::std.correction",  kAny,                      {},     {}},
    {"aten::std.dim",         kAny,                      {},     {}},
    {"aten::std_mean.correction", kAny,                  {},     {}},
    {"aten::std_mean.dim",    kAny,                      {},     {}},
    {"aten::sum",             kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::sum.dim_IntList", kAny,                      {kF32}, {}, {.promoted = 0b1}},
    {"aten::var.correction",  kAny,                      {},     {}},
    {"aten::var.dim",         kAny,                      {},     {}},
    {"aten::var_mean.correction", kAny,                  {},     {}},
    {"aten::var_mean.dim",    kAny,                      {},     {}},
    // losses: element-wise (kernels/ops/loss.h), by class (kernels/shapes/reduction/class_loss.h)
    {"aten::binary_cross_entropy",             kAny, {}, {}},
    {"aten::binary_cross_entropy_with_logits", kAny, {}, {}},
    {"aten::cross_entropy_loss", kAny,                   {},     {}},
    {"aten::huber_loss",      kAny,                      {},     {}},
    {"aten::kl_div",          kAny,                      {},     {}},
    {"aten::l1_loss",         kAny,                      {},     {}},
    {"aten::mse_loss",        kAny,                      {},     {}},
    {"aten::nll_loss",        kAny,                      {},     {}},
    {"aten::nll_loss2d_forward", kAny,                   {},     {}},
    {"aten::nll_loss_forward", kAny,                     {},     {}},
    {"aten::nll_loss_nd",     kAny,                      {},     {}},
    {"aten::smooth_l1_loss",  kAny,                      {},     {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> reduction_rows() { return kReductionRows; }

}  // namespace tir::kernels::ops
