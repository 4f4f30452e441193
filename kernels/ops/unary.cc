// The unary family of the op catalogue (kernels/ops/catalogue.h): element-wise functions of one
// tensor: activations, math functions, rounding, predicates, dropout (identity at inference) and
// the triangle masks. Each row: the op, then the dtypes each backend implements (reference, cpu,
// cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kUnaryRows[] = {
    {"aten::abs",            {kI32, kI64, kF32, kF64, kC64, kC128},  {kF32}, {kF32}},
    {"aten::acos",           kAny,                {},     {}},
    {"aten::acosh",          kAny,                {},     {}},
    {"aten::asin",           kAny,                {},     {}},
    {"aten::asinh",          kAny,                {},     {}},
    {"aten::atan",           kAny,                {},     {}},
    {"aten::atanh",          kAny,                {},     {}},
    {"aten::bitwise_not",    {kI32, kI64, kBool}, {},     {}},
    {"aten::ceil",           kAny,                {},     {}},
    {"aten::cos",            {kI64, kF32, kF64, kBool}, {kF32}, {}},
    {"aten::cosh",           kAny,                {},     {}},
    {"aten::dropout",        kAny,                {},     {kF32}},
    {"aten::dropout_",       kAny,                {},     {}},
    {"aten::elu",            kAny,                {},     {}},
    {"aten::erf",            {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::erfc", kAny, {}, {}},
    {"aten::exp",            {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::exp2", kAny, {}, {}},
    {"aten::expm1",          kAny,                {},     {}},
    {"aten::floor",          kAny,                {},     {}},
    {"aten::frac", kAny, {}, {}},
    {"aten::gelu",           {kF32, kF64},        {kF32}, {kF32}},
    {"aten::glu", {kF32, kF64}, {}, {}},
    {"aten::hardshrink", kAny, {}, {}},
    {"aten::hardsigmoid",    {kF32, kF64},        {kF32}, {kF32}},
    {"aten::hardsigmoid_",   {kF32, kF64},        {kF32}, {}},
    {"aten::hardswish",      {kF32, kF64},        {kF32}, {kF32}},
    {"aten::hardswish_",     {kF32, kF64},        {kF32}, {}},
    {"aten::hardtanh",       {kI64, kF32, kF64},  {kF32}, {kF32}},
    {"aten::hardtanh_",      {kI64, kF32, kF64},  {kF32}, {}},
    {"aten::isfinite", kAny, {}, {}},
    {"aten::isinf",          kAny,                {},     {}},
    {"aten::isnan",          kAny,                {},     {}},
    {"aten::leaky_relu",     kAny,                {},     {}},
    {"aten::log",            {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::log10",          kAny,                {},     {}},
    {"aten::log1p",          kAny,                {},     {}},
    {"aten::log2",           kAny,                {},     {}},
    {"aten::log_sigmoid", kAny, {}, {}},
    {"aten::logical_not",    {kI32, kI64, kF32, kF64, kBool}, {},     {}},
    {"aten::logit", kAny, {}, {}},
    {"aten::mish", kAny, {}, {}},
    {"aten::nan_to_num", kAny, {}, {}},
    {"aten::native_dropout", kAny,                {},     {}},
    {"aten::neg",            {kI32, kI64, kF32, kF64, kC64, kC128},  {kF32}, {kF32}},
    {"aten::prelu", {kF32, kF64}, {}, {}},
    {"aten::reciprocal",     kAny,                {},     {}},
    {"aten::relu",           {kI64, kF32, kF64},  {kF32}, {kF32}},
    {"aten::relu6",          {kI64, kF32, kF64},  {kF32}, {kF32}},
    {"aten::relu_",          {kI64, kF32, kF64},  {kF32}, {kF32}},
    {"aten::round",          kAny,                {},     {}},
    {"aten::round.decimals", kAny,                {},     {}},
    {"aten::rsqrt",          {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::sigmoid",        {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::sign",           kAny,                {},     {}},
    {"aten::signbit", kAny, {}, {}},
    {"aten::silu",           {kF32, kF64},        {kF32}, {kF32}},
    {"aten::sin",            {kI64, kF32, kF64, kBool}, {kF32}, {}},
    {"aten::sinc", kAny, {}, {}},
    {"aten::sinh",           kAny,                {},     {}},
    {"aten::softplus", kAny, {}, {}},
    {"aten::softshrink", kAny, {}, {}},
    {"aten::sqrt",           {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::tan",            kAny,                {},     {}},
    {"aten::tanh",           {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::threshold", kAny, {}, {}},
    {"aten::tril",           {kI32, kI64, kF32, kF64, kBool}, {},     {}},
    {"aten::triu",           {kI32, kI64, kF32, kF64, kBool}, {},     {}},
    {"aten::trunc",          kAny,                {},     {}},
    // special functions (kernels/ops/special.h)
    {"aten::digamma",        kAny,                {},     {}},
    {"aten::erfinv",         kAny,                {},     {}},
    {"aten::i0",             kAny,                {},     {}},
    {"aten::lgamma",         kAny,                {},     {}},
    {"aten::polygamma",      kAny,                {},     {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> unary_rows() { return kUnaryRows; }

}  // namespace tir::kernels::ops
