// The library behind `tirc inspect`: what a .tir holds, for people (text) or scripts (JSON):
// methods, their symbols with ranges, inputs and outputs with symbolic shapes, op counts,
// weights and constants.
#pragma once

#include <iosfwd>
#include <string>

#include "core/status.h"

namespace tir::tools {

struct InspectOptions {
  std::string model_path;
  bool json = false;
  /// Non-empty: also write the graph of `method` as Graphviz DOT there
  /// (tooling/inspect/graph_dot.h), and render it as SVG into `svg_path` when that is set too
  /// (needs Graphviz `dot`).
  std::string dot_path, svg_path;
  std::string method;  // empty: the first method
};

Status inspect_model(const InspectOptions& options, std::ostream& out);

}  // namespace tir::tools
