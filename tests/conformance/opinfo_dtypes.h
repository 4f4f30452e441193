// The dtypes torch's OpInfo says each catalogue row's op takes on the CPU
// (tests/data/opinfo_dtypes.json, gen_opinfo_dtypes.py), set against what tir implements: a
// kernel of the row takes the dtype, or runtime/passes/narrow_dtypes.h computes it in a wider
// one. A dtype neither way is excluded with a reviewed reason
// (tests/data/opinfo_dtype_exclusions.json) or it is a gap. The op suite samples every
// implemented pair (gen_op_samples.py) and docs/conformance.md counts them.
#pragma once

#include <string>
#include <vector>

namespace tir::conformance {

/// One catalogue row and one dtype torch's OpInfo lists for its op.
struct OpInfoDtype {
  std::string op, dtype;
  /// How tir runs it: "kernel" (a kernel of the row takes it), "float32" / "int64" (the
  /// narrow-dtype pass computes it in that dtype); empty when tir does not run it.
  std::string how;
  /// The exclusion list's reason, empty when no exclusion names this pair.
  std::string excluded;
};

/// The op suite's own samples of a pair (tests/data/op_suite, gen_op_samples.py: "op" and
/// "dtype" of the case) run on the default CPU device against torch's outputs.
struct OpInfoDtypeRun {
  int samples = 0, passed = 0;
  std::string failure;  // the first failing sample's case and reason; why none, if none
};

/// The table's pairs, in op then dtype order. Problems with the table itself (a catalogue
/// row it lacks, an exclusion of a pair tir implements or torch does not list, a file that
/// does not parse) go to `out_errors`.
std::vector<OpInfoDtype> opinfo_dtypes(const std::string& data_dir,
                                       std::vector<std::string>* out_errors);

/// Runs the samples of every pair tir runs (empty OpInfoDtypeRun for the others).
std::vector<OpInfoDtypeRun> run_opinfo_dtype_samples(const std::string& data_dir,
                                                     const std::vector<OpInfoDtype>& pairs);

/// The section of docs/conformance.md: counts per dtype, exclusions by reason, failures.
std::string render_opinfo_dtypes_markdown(const std::vector<OpInfoDtype>& pairs,
                                          const std::vector<OpInfoDtypeRun>& runs,
                                          const std::string& torch);

}  // namespace tir::conformance
