// The complex family of the op catalogue (kernels/ops/catalogue.h): the views between a complex
// tensor and its float parts, building complex values from parts, reading parts, conjugation.
// The complex dtypes of the arithmetic ops (add, sub, mul, div, neg, abs) are in their own rows
// (binary.cc, unary.cc). Each row: the op, then the dtypes each backend implements (reference,
// cpu, cuda), then its capabilities.
#include "kernels/ops/families.h"

namespace tir::kernels::ops {

namespace {

// clang-format off
constexpr OpRow kComplexRows[] = {
    {"aten::_conj",           {kC64, kC128},             {}, {}},
    {"aten::angle",           {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::complex",         {kF32, kF64},              {}, {}},
    {"aten::conj",            {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::conj_physical",   {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::imag",            {kC64, kC128},             {}, {}},
    {"aten::polar",           {kF32, kF64},              {}, {}},
    {"aten::real",            {kC64, kC128},             {}, {}},
    {"aten::resolve_conj",    {kF32, kF64, kC64, kC128}, {}, {}},
    {"aten::view_as_complex", {kF32, kF64},              {}, {}},
    {"aten::view_as_real",    {kC64, kC128},             {}, {}},
};
// clang-format on

}  // namespace

std::span<const OpRow> complex_rows() { return kComplexRows; }

}  // namespace tir::kernels::ops
