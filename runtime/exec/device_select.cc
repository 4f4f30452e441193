#include "runtime/exec/device_select.h"

#include <charconv>
#include <map>
#include <sstream>

#include "runtime/devices/cuda_loader.h"

namespace tir {

Result<DeviceSelection> select_device(std::string_view name) {
  DeviceSelection s;
  if (name.empty() || name == "cpu") {
    s.devices = {cpu_device()};
    return s;
  }
  int index = 0;
  if (name.starts_with("cuda:")) {
    const std::string_view digits = name.substr(5);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
      return make_error(StatusCode::kInvalidArgument, "device '", name,
                        "': expected cuda:N with N a GPU index");
  } else if (name != "cuda") {
    return make_error(StatusCode::kInvalidArgument, "unknown device '", name,
                      "' (expected cpu, cuda or cuda:N)");
  }
  TIR_ASSIGN_OR_RETURN(auto gpu, make_cuda_device(index));
  s.devices = {cpu_device(), std::move(gpu)};
  // The GPU where it has a kernel; place_nodes falls back to the CPU device where not.
  s.placement = [](const ExecNode&, size_t) { return DeviceId{1}; };
  return s;
}

std::string placement_summary(const ExecGraph& g,
                              const std::vector<std::shared_ptr<Device>>& devices) {
  std::vector<size_t> count(devices.size(), 0);
  std::map<std::string_view, size_t> primary_ops;
  for (const ExecNode& n : g.nodes) {
    if (n.kind != StepKind::kKernel || n.device >= devices.size()) continue;
    ++count[n.device];
    if (n.device == 0) ++primary_ops[n.op];
  }
  std::ostringstream os;
  for (size_t d = 0; d < devices.size(); ++d) {
    os << (d ? ", " : "") << devices[d]->name() << ": " << count[d] << " nodes";
    if (d == 0 && devices.size() > 1 && !primary_ops.empty()) {
      os << " (";
      bool first = true;
      for (const auto& [op, k] : primary_ops) {
        os << (first ? "" : ", ") << op << " x" << k;
        first = false;
      }
      os << ")";
    }
  }
  return os.str();
}

}  // namespace tir
