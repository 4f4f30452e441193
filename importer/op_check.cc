#include "importer/op_check.h"

#include <map>
#include <sstream>
#include <vector>

#include "ir/model.h"
#include "kernels/ops/catalogue.h"

namespace tir::importer {

Status check_ops(std::span<const NodeOp> nodes, std::string_view file, DeviceType device) {
  struct Missing {
    size_t count = 0;
    std::string first_node;
  };
  std::map<std::string, Missing> missing;
  std::map<std::string, bool> known;  // op -> has a kernel
  for (const NodeOp& n : nodes) {
    auto it = known.find(n.op);
    // Control flow (cond and the loops) is run by the runtime itself, not by a kernel.
    if (it == known.end())
      it = known
               .emplace(n.op,
                        ir::is_control_flow_op(n.op) || kernels::catalogue_has_op(n.op, device))
               .first;
    if (it->second) continue;
    Missing& m = missing[n.op];
    if (m.count++ == 0) m.first_node = n.node;
  }
  if (missing.empty()) return ok_status();
  std::ostringstream os;
  os << "'" << file << "': " << missing.size() << (missing.size() == 1 ? " op has" : " ops have")
     << " no kernel: ";
  bool first = true;
  for (const auto& [op, m] : missing) {
    os << (first ? "" : ", ") << op << " (x" << m.count << ", first at node '" << m.first_node
       << "')";
    first = false;
  }
  return Status(StatusCode::kUnsupported, os.str());
}

Status check_model_ops(const fb::Model& model, std::string_view file, DeviceType device) {
  std::vector<NodeOp> ops;
  if (model.methods())
    for (const fb::Method* m : *model.methods())
      if (m->nodes())
        for (const fb::Node* n : *m->nodes())
          ops.push_back({std::string(ir::str(n->op())), std::string(ir::str(n->name()))});
  return check_ops(ops, file, device);
}

}  // namespace tir::importer
