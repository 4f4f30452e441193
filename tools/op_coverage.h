// The library behind `tirc ops`: every op the kernel registry supports (device, dtypes,
// reference/optimized), as text, JSON, or a Markdown page with the coverage of the core
// ATen op set (docs/ops.md is this page).
#pragma once

#include <iosfwd>

#include "core/status.h"

namespace tir::tools {

enum class OpListFormat { kText, kJson, kMarkdown };

Status list_ops(OpListFormat format, std::ostream& out);

}  // namespace tir::tools
