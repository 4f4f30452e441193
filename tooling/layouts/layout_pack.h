// `tirrun pack-layouts` (and `tirc weights pack --layout native`, which runs it): writes the
// layout cache of a tir weight file ahead of time, so that the first process that serves the
// model maps its weights in the layouts this CPU's kernels read instead of packing them
// (runtime/weights/layout_cache.h). It runs each method of the model twice on zero inputs at
// the symbol values given (--dim NAME=VALUE; default: each symbol's export-time example value,
// at least 16, within its range): the kernels pack what they pack at those sizes (oneDNN's blocked
// GEMM layouts from 16 rows of A, the int8 GEMMs' B from 2 rows), and the packed copies are written
// beside the weight file. Nothing packed (an AVX2 CPU reads float32 GEMM weights in place): no
// file, and the summary says so.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"

namespace tir::tools {

struct LayoutPackOptions {
  std::string model_path, weights_path;
  std::vector<std::string> methods;  // empty: every method of the model
  std::vector<std::string> dims;     // NAME=VALUE, a symbol's value for the runs
  std::string dtype = "f32";         // the precision the sessions will run in (f32, bf16, int8)
  int threads = 0;
};

/// Packs and writes the layout cache; one summary line per method and one for the file.
Status pack_layouts(const LayoutPackOptions& options, std::ostream& out);

/// `tirrun pack-layouts ...` (argv[0] is "pack-layouts").
int pack_layouts_main(int argc, char** argv);

}  // namespace tir::tools
