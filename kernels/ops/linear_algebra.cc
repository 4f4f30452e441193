// The linear algebra family of the op catalogue (kernels/ops/catalogue.h): matrix products
// (linear, addmm, batched and broadcast matmul), einsum and the products that are one
// (outer, dot, mv, addmv, addr, addbmm, trace, bilinear), recurrent layers, attention,
// distances and similarities; the integer product _int_mm (and tir::int_mm_weight, its form on
// a weight, runtime/passes/int_mm_rewrite.h). Each row: the
// op, then the dtypes each backend implements (reference, cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kLinearAlgebraRows[] = {
    {"aten::_cdist_forward",                              {kF32},       {},     {}},
    {"aten::_grouped_mm",                                 {kF32},       {},     {}},
    {"aten::_int_mm",                                     {kU8, kI8},   {kU8, kI8}, {}},
    {"aten::_pdist_forward",                              {kF32},       {},     {}},
    {"aten::_scaled_dot_product_flash_attention_for_cpu", {kF32, kF64}, {kF32}, {}},
    {"aten::_trilinear",                                    {kF32, kF64}, {},     {}},
    {"aten::addbmm",                                        {kF32, kF64}, {},     {}},
    {"aten::addmm",                                       {kI64, kF32, kF64}, {kF32}, {kF32}, {.epilogue = true, .half_weight = 1 << 2, .int8_weight = 1 << 2}},
    {"aten::addmv",                                         {kF32, kF64}, {},     {}},
    {"aten::addr",                                          {kF32, kF64}, {},     {}},
    {"aten::baddbmm",                                     {kF32, kF64}, {kF32}, {kF32}},
    {"aten::bilinear",                                      {kF32, kF64}, {},     {}},
    {"aten::bmm",                                         {kF32, kF64}, {kF32}, {kF32}},
    {"aten::cdist",                                       {kF32},       {},     {}},
    {"aten::cosine_similarity",                             {kF32, kF64}, {},     {}},
    {"aten::dot",                                           {kF32, kF64}, {},     {}},
    {"aten::einsum",                                      {kF32, kF64}, {kF32}, {}},
    {"aten::ger",                                           {kF32, kF64}, {},     {}, {.promoted = 0b11}},
    {"aten::gru.input",                                     {kF32},       {},     {}},
    {"aten::gru_cell",                                      {kF32},       {},     {}},
    {"aten::linear",                                      {kF32, kF64}, {kF32}, {kF32}, {.epilogue = true, .half_weight = 1 << 1, .int8_weight = 1 << 1}},
    {"aten::lstm.input",                                    {kF32},       {},     {}},
    {"aten::lstm_cell",                                     {kF32},       {},     {}},
    {"aten::matmul",                                      {kF32, kF64}, {kF32}, {kF32}},
    {"aten::mm",                                          {kI64, kF32, kF64}, {kF32}, {kF32}, {.epilogue = true, .half_weight = 1 << 1, .int8_weight = 1 << 1}},
    {"aten::mv",                                            {kF32, kF64}, {},     {}},
    {"aten::outer",                                         {kF32, kF64}, {},     {}, {.promoted = 0b11}},
    {"aten::pairwise_distance",                             {kF32, kF64}, {},     {}},
    {"aten::pdist",                                       {kF32},       {},     {}},
    {"aten::rnn_relu.input",                                {kF32},       {},     {}},
    {"aten::rnn_relu_cell",                                 {kF32},       {},     {}},
    {"aten::rnn_tanh.input",                                {kF32},       {},     {}},
    {"aten::rnn_tanh_cell",                                 {kF32},       {},     {}},
    {"aten::scaled_dot_product_attention",                {kF32, kF64}, {kF32}, {}},
    {"aten::trace",                                         {kF32, kF64}, {},     {}},
    {"aten::vdot",                                          {kF32, kF64}, {},     {}},
    {"tir::int_mm_weight",                                {kU8, kI8},   {kU8, kI8}, {}},
    {"transformers::grouped_mm_fallback",                 {kF32},       {},     {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> linear_algebra_rows() { return kLinearAlgebraRows; }

}  // namespace tir::kernels::ops
