// The graph view behind `tirc inspect model.tir --dot graph.dot [--svg graph.svg]` and
// `tirrun ... --dot graph.dot`: one method of a .tir as Graphviz DOT. Nodes are the IR's ATen
// nodes (op and FX name; module type and source line as tooltips), edges follow activations
// from producer to consumer, user inputs and outputs are ellipses, weights and constants are
// left out (their count is in the title). Nodes sit in nested clusters by nn.Module path
// ("layer1" > "layer1.0" > "layer1.0.conv1"). Fused groups, when given, are filled with one
// colour per group and the producer's label names the group ("aten::conv2d+batch_norm+relu").
// Fusion is decided at load by the runtime from the kernels it resolves, so tirc (which links
// no kernels) draws the IR alone and tirrun marks the groups its session formed.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/status.h"

namespace tir {
namespace ir {
class ModelView;
}

namespace tools {

/// A fused group in IR node indices of the method (Method.nodes).
struct DotGroup {
  int32_t producer = -1;
  std::vector<int32_t> absorbed;
  std::string label;
};

struct DotOptions {
  std::string method = "forward";
  std::vector<DotGroup> fused;
  /// A line added to the title (e.g. where the groups came from).
  std::string note;
};

/// Writes method `options.method` of `model` as DOT to `out`; an unknown method is
/// kNotFound naming it and the methods there are.
Status graph_dot_write(const ir::ModelView& model, const std::string& model_path,
                       const DotOptions& options, std::ostream& out);

/// The same into `dot_path` (atomically), and, when `svg_path` is not empty, rendered with
/// Graphviz (`dot -Tsvg`) into `svg_path`; without Graphviz on PATH that is kUnsupported
/// saying to install it, and no SVG is left behind.
Status graph_dot_save(const ir::ModelView& model, const std::string& model_path,
                      const DotOptions& options, const std::string& dot_path,
                      const std::string& svg_path);

/// The IR nodes a fused group replaces: those after `producer` and up to the node that
/// writes `output` (its last value), following activations. `producer` and `output` are IR
/// indices (node, value) of `method`.
std::vector<int32_t> graph_dot_group_nodes(const ir::ModelView& model, const std::string& method,
                                           int32_t producer, int32_t output);

}  // namespace tools
}  // namespace tir
