// `tirc weights pack --layout native`: the layout cache of a tir weight file written ahead of
// time (runtime/weights/layout_cache.h). Packing runs the model's kernels, which tirc never
// links (it stays free of oneDNN), so this runs `tirrun pack-layouts` from the folder tirc
// itself is in (tooling/layouts/layout_pack.h); its output and exit status are passed on.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace tir::tools {

struct NativeLayoutOptions {
  std::string model, weights;
  std::vector<std::string> dims;  // NAME=VALUE (tirrun pack-layouts --dim)
  int threads = 0;
};

/// Runs `tirrun pack-layouts`; ok when it exits 0 (its error line is already printed:
/// the status then says only that it failed).
Status pack_native_layouts(const NativeLayoutOptions& options);

}  // namespace tir::tools
