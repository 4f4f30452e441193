// The graph view of a loaded session (`tirrun ... --dot graph.dot`): the IR drawn by
// tooling/inspect/graph_dot.h with the fused groups this session formed at load marked.
#pragma once

#include <string>

#include "core/status.h"

namespace tir {
class Session;
namespace tools {

/// Writes `session`'s method of `model_path` as DOT into `dot_path` (and SVG into `svg_path`
/// when set), each group the runtime fused filled in its own colour.
Status session_graph_save(const Session& session, const std::string& model_path,
                          const std::string& dot_path, const std::string& svg_path);

}  // namespace tools
}  // namespace tir
