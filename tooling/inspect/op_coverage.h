// The library behind `tirc ops`: every op the kernel registry supports (device, dtypes,
// reference/optimized), as text, JSON, or a Markdown page with the coverage of the core
// ATen op set (docs/reference/ops.md is this page), or the core ops still missing.
#pragma once

#include <iosfwd>

#include "core/status.h"

namespace tir::tools {

/// kMissing: the core ATen ops (backward ops excluded) that have no CPU kernel, one a line.
enum class OpListFormat { kText, kJson, kMarkdown, kMissing };

Status list_ops(OpListFormat format, std::ostream& out);

}  // namespace tir::tools
