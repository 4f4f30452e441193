// The conformance sweep (tests/conformance/gen_conformance.py): runs each one-op program
// exported from PyTorch's OpInfo samples through import + Session and compares with torch
// eager's outputs; renders the per-op results as docs/conformance.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kernels/ops/catalogue.h"
#include "runtime/exec/session.h"
#include "runtime/weights/host_tensor.h"

namespace tir::conformance {

/// Tolerance of float outputs: |tir - torch| <= kAtol + kRtol * |torch|, NaN where torch has
/// NaN. Integer and bool outputs must be equal.
inline constexpr double kRtol = 1e-4, kAtol = 1e-5;
/// float64 outputs: |tir - torch| <= kAtol64 + kRtol64 * |torch|, far inside what a float32
/// computation could reach (its rounding alone is ~6e-8 relative).
inline constexpr double kRtol64 = 1e-9, kAtol64 = 1e-12;

struct CaseResult {
  std::string case_name, op, dtype;
  bool passed = false;
  std::string reason;  // why it failed: deterministic text, no paths or numbers that vary
  /// Once it ran: its outputs, and each kernel node's op and the backend of its kernel.
  std::vector<HostTensor> outputs;
  std::vector<std::pair<std::string, kernels::Backend>> kernels;
};

/// A manifest tensor ({"dtype", "shape", "data"}; NaN and infinities as strings).
HostTensor tensor_of(const nlohmann::json& j);

/// Imports and runs one manifest case whose archive is `<dir>/<case>.pt2`, in a session with
/// `options` (the process's CPU device by default).
CaseResult run_case(const std::string& dir, const nlohmann::json& c,
                    const SessionOptions& options = {});

/// Empty when output `k` of a run, `got`, matches `want` within the tolerance above, else
/// why not (`who` names where `want` comes from: "torch", "the reference").
std::string compare_output(size_t k, const Tensor& got, const Tensor& want, const std::string& who);

/// The type-promotion sweep (tests/conformance/gen_promotion.py, in `dir`): per program
/// (op x operand form), the pairs of dtypes whose result matches torch's dtype and values.
struct PromotionResult {
  std::string op, form;
  int passed = 0, total = 0;
  std::vector<std::string> failed;  // "int8 x float16: output 3: dtype ..." (or the run's error)
};
std::vector<PromotionResult> run_promotion_sweep(const std::string& dir);
/// Its section of docs/conformance.md, titled with the programs' dialect ("core IR").
std::string render_promotion_markdown(const std::vector<PromotionResult>& results,
                                      std::string_view dialect);

/// docs/conformance.md for these results.
std::string render_markdown(const std::vector<CaseResult>& results, const std::string& torch);

}  // namespace tir::conformance
