#include "tooling/run/session_graph.h"

#include "ir/model.h"
#include "runtime/exec/session.h"
#include "runtime/passes/exec_graph.h"
#include "runtime/weights/data_loader.h"
#include "tooling/inspect/graph_dot.h"

namespace tir::tools {

Status session_graph_save(const Session& session, const std::string& model_path,
                          const std::string& dot_path, const std::string& svg_path) {
  TIR_ASSIGN_OR_RETURN(auto src, data_source_mmap(model_path));
  TIR_ASSIGN_OR_RETURN(ir::ModelView view, ir::ModelView::open(src->bytes(), model_path));
  DotOptions o;
  o.method = session.method_name();
  o.note = "filled: GEMM/conv groups this session fused at load (one kernel call each)";
  for (const ExecNode& n : session.exec_graph().nodes) {
    if (!n.fused || n.index < 0 || n.outputs.empty()) continue;
    DotGroup g;
    g.producer = n.index;
    g.label = std::string(n.profile_name());
    g.absorbed = graph_dot_group_nodes(view, o.method, n.index, n.outputs[0]);
    o.fused.push_back(std::move(g));
  }
  return graph_dot_save(view, model_path, o, dot_path, svg_path);
}

}  // namespace tir::tools
