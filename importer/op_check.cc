#include "importer/op_check.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "core/regular_file.h"
#include "ir/model.h"
#include "kernels/ops/catalogue.h"

namespace tir::importer {

Status check_custom_op_names(std::span<const std::string> custom_ops) {
  for (const std::string& op : custom_ops)
    if (!kernels::is_custom_op(op))
      return make_error(StatusCode::kInvalidArgument, "--custom-op '", op,
                        "': not a custom op name (expected namespace::name in a namespace of "
                        "its own, such as mylib::scaled_add)");
  return ok_status();
}

Status read_custom_op_list(const std::string& path, std::vector<std::string>* out) {
  TIR_ASSIGN_OR_RETURN(const std::string text, read_regular_file(path, "custom op list"));
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    const std::string name = line.substr(begin, line.find_last_not_of(" \t\r") + 1 - begin);
    if (!kernels::is_custom_op(name))
      return make_error(StatusCode::kInvalidArgument, "'", path, "' line ", number, ": '", name,
                        "' is not a custom op name (expected namespace::name, such as "
                        "mylib::scaled_add)");
    out->push_back(name);
  }
  return ok_status();
}

Status check_ops(std::span<const NodeOp> nodes, std::string_view file, DeviceType device,
                 std::span<const std::string> custom_ops) {
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
               .emplace(n.op, ir::is_control_flow_op(n.op) ||
                                  kernels::catalogue_has_op(n.op, device) ||
                                  std::find(custom_ops.begin(), custom_ops.end(), n.op) !=
                                      custom_ops.end())
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
  std::string custom;  // the first custom op among them
  for (const auto& [op, m] : missing) {
    os << (first ? "" : ", ") << op << " (x" << m.count << ", first at node '" << m.first_node
       << "')";
    first = false;
    if (custom.empty() && kernels::is_custom_op(op)) custom = op;
  }
  if (!custom.empty())
    os << "; " << custom << " is a custom op: import with --custom-op " << custom
       << " to keep it and register its kernel in the application that runs the model";
  return Status(StatusCode::kUnsupported, os.str());
}

Status check_model_ops(const fb::Model& model, std::string_view file, DeviceType device,
                       std::span<const std::string> custom_ops) {
  std::vector<NodeOp> ops;
  if (model.methods())
    for (const fb::Method* m : *model.methods())
      if (m->nodes())
        for (const fb::Node* n : *m->nodes())
          ops.push_back({std::string(ir::str(n->op())), std::string(ir::str(n->name()))});
  return check_ops(ops, file, device, custom_ops);
}

}  // namespace tir::importer
