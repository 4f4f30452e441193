// The binary family of the op catalogue (kernels/ops/catalogue.h): element-wise functions of two
// tensors or a tensor and a scalar (arithmetic, comparison, logical, bitwise) and the element-
// wise selects and clamps of three. Each row: the op, then the dtypes each backend implements
// (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kBinaryRows[] = {
    {"aten::__and__.Tensor",     {kI32, kI64, kBool},       {},     {}},
    {"aten::__or__.Tensor",      {kI32, kI64, kBool},       {},     {}},
    {"aten::add.Scalar",         {kI32, kI64, kF32, kF64, kC64, kC128},  {kF32}, {kF32}, {.promoted = 0b1}},
    {"aten::add.Tensor",         {kI32, kI64, kF32, kF64, kBool, kC64, kC128}, {kF32}, {kF32}, {.promoted = 0b11, .bool_other = true}},
    {"aten::add_.Tensor",        {kI64, kF32, kF64},        {kF32}, {kF32}},
    {"aten::addcdiv",            kAny,                      {},     {}, {.promoted = 0b111}},
    {"aten::addcmul",            kAny,                      {},     {}, {.promoted = 0b111}},
    {"aten::atan2",              kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::atan2.out",          kAny,                      {},     {}},
    {"aten::bitwise_and.Scalar", kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::bitwise_and.Tensor", {kI32, kI64, kBool},       {},     {}, {.promoted = 0b11}},
    {"aten::bitwise_or.Scalar",  kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::bitwise_or.Tensor",  {kI32, kI64, kBool},       {},     {}, {.promoted = 0b11}},
    {"aten::bitwise_xor.Scalar", kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::bitwise_xor.Tensor", kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::clamp",              {kI32, kI64, kF32, kF64},  {},     {}},
    {"aten::clamp.Tensor",       kAny,                      {},     {}, {.promoted = 0b111}},
    {"aten::copysign.Scalar",    kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::copysign.Tensor",    kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::div.Scalar",         {kI64, kF32, kF64, kC64, kC128},        {kF32}, {kF32}, {.promoted = 0b1}},
    {"aten::div.Scalar_mode",    kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::div.Tensor",         {kI32, kI64, kF32, kF64, kBool, kC64, kC128}, {kF32}, {kF32}, {.promoted = 0b11, .bool_other = true}},
    {"aten::div.Tensor_mode",    kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::eq.Scalar",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b1, .compare = true}},
    {"aten::eq.Tensor",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::floor_divide",       kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::fmax",               kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::fmin",               kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::fmod.Scalar",        kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::fmod.Tensor",        kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::ge.Scalar",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b1, .compare = true}},
    {"aten::ge.Tensor",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::gt.Scalar",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b1, .compare = true}},
    {"aten::gt.Tensor",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::heaviside",          kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::hypot",              kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::le.Scalar",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b1, .compare = true}},
    {"aten::le.Tensor",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::lerp.Scalar",        kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::lerp.Tensor",        kAny,                      {},     {}, {.promoted = 0b111}},
    {"aten::logaddexp",          kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::logaddexp2",         kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::logical_and",        kAny,                      {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::logical_or",         kAny,                      {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::logical_xor",        kAny,                      {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::lt.Scalar",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b1, .compare = true}},
    {"aten::lt.Tensor",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::max.other",          kAny,                      {},     {}},
    {"aten::maximum",            kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::min.other",          kAny,                      {},     {}},
    {"aten::minimum",            kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::mul.Scalar",         {kI32, kI64, kF32, kF64, kBool, kC64, kC128}, {kF32}, {kF32}, {.promoted = 0b1}},
    {"aten::mul.Tensor",         {kI32, kI64, kF32, kF64, kBool, kC64, kC128}, {kF32}, {kF32}, {.channels_last = 0b11, .promoted = 0b11, .bool_other = true}},
    {"aten::mul_.Tensor",        {kI64, kF32, kF64, kBool}, {kF32}, {kF32}},
    {"aten::ne.Scalar",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b1, .compare = true}},
    {"aten::ne.Tensor",          {kI32, kI64, kF32, kF64, kBool}, {},     {}, {.promoted = 0b11, .compare = true}},
    {"aten::pow.Scalar",         kAny,                      {},     {}},
    {"aten::pow.Tensor_Scalar",  {kI64, kF32, kF64},              {kF32}, {kF32}, {.promoted = 0b1}},
    {"aten::pow.Tensor_Tensor",  kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::remainder.Scalar",   kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::remainder.Tensor",   kAny,                      {},     {}, {.promoted = 0b11}},
    {"aten::rsub.Scalar",        {kI64, kF32, kF64},        {kF32}, {kF32}, {.promoted = 0b1}},
    {"aten::sub.Scalar",         {kI32, kI64, kF32, kF64},  {kF32}, {kF32}, {.promoted = 0b1}},
    {"aten::sub.Tensor",         {kI32, kI64, kF32, kF64, kC64, kC128},        {kF32}, {kF32}, {.promoted = 0b11, .bool_other = true}},
    {"aten::where.Scalar",       {kBool},                   {},     {}},
    {"aten::where.ScalarOther",  {kBool},                   {},     {}},
    {"aten::where.ScalarSelf",   {kBool},                   {},     {}},
    {"aten::where.self",         {kBool},                   {},     {}, {.promoted = 0b110}},
    {"aten::xlogy.Scalar_Other", kAny,                      {},     {}, {.promoted = 0b1}},
    {"aten::xlogy.Scalar_Self",  kAny,                      {},     {}, {.promoted = 0b10}},
    {"aten::xlogy.Tensor",       kAny,                      {},     {}, {.promoted = 0b11}},
};
// clang-format on

}  // namespace

std::span<const OpRow> binary_rows() { return kBinaryRows; }

}  // namespace tir::kernels::ops
