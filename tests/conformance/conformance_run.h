// The conformance sweep (tests/conformance/gen_conformance.py): runs each one-op program
// exported from PyTorch's OpInfo samples through import + Session and compares with torch
// eager's outputs; renders the per-op results as docs/conformance.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tir::conformance {

/// Tolerance of float outputs: |tir - torch| <= kAtol + kRtol * |torch|, NaN where torch has
/// NaN. Integer and bool outputs must be equal.
inline constexpr double kRtol = 1e-4, kAtol = 1e-5;

struct CaseResult {
  std::string case_name, op, dtype;
  bool passed = false;
  std::string reason;  // why it failed: deterministic text, no paths or numbers that vary
};

/// Imports and runs one manifest case whose archive is `<dir>/<case>.pt2`.
CaseResult run_case(const std::string& dir, const nlohmann::json& c);

/// docs/conformance.md for these results.
std::string render_markdown(const std::vector<CaseResult>& results, const std::string& torch);

}  // namespace tir::conformance
