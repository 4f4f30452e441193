#include "kernels/ops/catalogue.h"

#include <array>

#include "kernels/ops/families.h"

namespace tir::kernels {

std::string_view family_name(Family f) {
  switch (f) {
    case Family::kUnary:
      return "unary";
    case Family::kBinary:
      return "binary";
    case Family::kReduction:
      return "reduction";
    case Family::kNormalization:
      return "normalization";
    case Family::kSoftmax:
      return "softmax";
    case Family::kLinearAlgebra:
      return "linear_algebra";
    case Family::kConvolution:
      return "convolution";
    case Family::kPooling:
      return "pooling";
    case Family::kResampling:
      return "resampling";
    case Family::kMovement:
      return "movement";
    case Family::kIndexing:
      return "indexing";
    case Family::kCreation:
      return "creation";
    case Family::kSortSelect:
      return "sort_select";
    case Family::kQuantization:
      return "quantization";
    case Family::kAssertion:
      return "assertion";
    case Family::kComplex:
      return "complex";
    case Family::kSpectral:
      return "spectral";
  }
  return "?";
}

std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::kReference:
      return "reference";
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
  }
  return "?";
}

std::span<const FamilyTable> op_catalogue() {
  using namespace ops;
  static const std::array<FamilyTable, kNumFamilies> kFamilies = {{
      {Family::kUnary, unary_rows()},
      {Family::kBinary, binary_rows()},
      {Family::kReduction, reduction_rows()},
      {Family::kNormalization, normalization_rows()},
      {Family::kSoftmax, softmax_rows()},
      {Family::kLinearAlgebra, linear_algebra_rows()},
      {Family::kConvolution, convolution_rows()},
      {Family::kPooling, pooling_rows()},
      {Family::kResampling, resampling_rows()},
      {Family::kMovement, movement_rows()},
      {Family::kIndexing, indexing_rows()},
      {Family::kCreation, creation_rows()},
      {Family::kSortSelect, sort_select_rows()},
      {Family::kQuantization, quantization_rows()},
      {Family::kAssertion, assertion_rows()},
      {Family::kComplex, complex_rows()},
      {Family::kSpectral, spectral_rows()},
  }};
  return kFamilies;
}

const OpRow* find_op_row(std::string_view op, Family* family) {
  for (const FamilyTable& t : op_catalogue())
    for (const OpRow& row : t.rows)
      if (row.op == op) {
        if (family) *family = t.family;
        return &row;
      }
  return nullptr;
}

bool catalogue_has_op(std::string_view op, DeviceType device) {
  const OpRow* row = find_op_row(op);
  if (!row) return false;
  if (device == DeviceType::kCuda) return !row->cuda.empty();
  return !row->reference.empty() || !row->cpu.empty();
}

bool is_custom_op(std::string_view op) {
  static constexpr std::string_view kOwned[] = {
      "aten", "prims", "higher_order", "quantized_decomposed", "tir", "_operator", "builtins",
      "math", "torch", "profiler"};
  const size_t colons = op.find("::");
  if (colons == std::string_view::npos || colons == 0) return false;
  const std::string_view ns = op.substr(0, colons);
  if (op.size() == colons + 2) return false;
  for (std::string_view owned : kOwned)
    if (ns == owned) return false;
  return true;
}

}  // namespace tir::kernels
