#include "runtime/passes/placement.h"

#include <map>

namespace tir {

Status place_nodes(ExecGraph& g, std::span<const std::shared_ptr<Device>> devices,
                   const PlacementPolicy& policy) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ExecNode& n = g.nodes[i];
    n.device = 0;
    if (n.kind == StepKind::kKernel) {
      const DType dtype = exec_node_key_dtype(g, n);
      const DeviceId want = policy ? policy(n, i) : DeviceId{0};
      if (want < devices.size()) {
        n.kernel = devices[want]->find_kernel(n.op, dtype);
        n.device = want;
      }
      if (!n.kernel) {
        n.device = 0;
        n.kernel = devices[0]->find_kernel(n.op, dtype);
      }
      if (!n.kernel && kernels::is_custom_op(n.op) && !devices[0]->supports_op(n.op))
        return make_error(StatusCode::kUnsupported, "node '", n.name, "' calls custom op ", n.op,
                          ", which has no registered kernel (register one before opening the "
                          "session: KernelRegistry::add_custom in C++, "
                          "tir_session_options_add_custom_op in C)");
      if (!n.kernel) {
        const bool any = devices[0]->supports_op(n.op);
        const std::string_view where =
            devices[0]->type() == DeviceType::kCpu ? "CPU" : devices[0]->name();
        return make_error(StatusCode::kUnsupported, "node '", n.name, "': op ", n.op,
                          any ? " has no " : " has no kernel", any ? where : "",
                          any ? " kernel for dtype " : "", any ? dtype_name(dtype) : "");
      }
    }
    for (int32_t v : n.outputs) g.values[v].device = n.device;
  }
  return ok_status();
}

namespace {

ExecNode make_copy(const ExecGraph& g, int32_t from, int32_t to, DeviceId device) {
  ExecNode c;
  c.kind = StepKind::kCopy;
  c.op = "tir::copy";
  c.name = ir::str(g.values[from].ir->name());
  c.inputs = {from};
  c.outputs = {to};
  c.device = device;
  return c;
}

}  // namespace

size_t insert_copies(ExecGraph& g, std::span<const std::shared_ptr<Device>> devices) {
  const auto lives_on = [&](int32_t v) -> DeviceId {
    return g.values[v].source == fb::ValueSource::Activation ? g.values[v].device : DeviceId{0};
  };
  const auto host_data = [&](int32_t v) {
    return g.values[v].source != fb::ValueSource::Activation;
  };
  std::map<std::pair<int32_t, DeviceId>, int32_t> copies;  // (value, device) -> its copy
  std::vector<ExecNode> out;
  out.reserve(g.nodes.size());
  size_t inserted = 0;
  for (ExecNode& n : g.nodes) {
    if (n.dead) continue;
    const int32_t written = n.inputs.empty() ? -1 : n.inputs[0];  // by an in-place op
    for (int32_t& v : n.inputs) {
      const DeviceId from = lives_on(v);
      const bool reachable = host_data(v) && devices[n.device]->host_accessible();
      if (from == n.device || reachable || !g.values[v].is_tensor) continue;
      auto [it, fresh] = copies.try_emplace({v, n.device}, -1);
      if (fresh) {
        it->second = g.add_value_like(v, n.device);
        out.push_back(make_copy(g, v, it->second, n.device));
        ++inserted;
      }
      v = it->second;
    }
    // A value written in place: copies made of it before are stale from here on.
    if (op_is_inplace(n.op) && written >= 0)
      std::erase_if(copies, [&](const auto& e) { return e.first.first == written; });
    out.push_back(std::move(n));
  }
  g.nodes = std::move(out);
  // Results the caller reads must be on the primary device or host-addressable.
  const auto bring_back = [&](int32_t& v) {
    const DeviceId d = lives_on(v);
    if (d == 0 || devices[d]->host_accessible()) return;
    const int32_t to = g.add_value_like(v, 0);
    g.nodes.push_back(make_copy(g, v, to, 0));
    ++inserted;
    v = to;
  };
  for (int32_t& v : g.outputs) bring_back(v);
  for (auto& m : g.mutations) bring_back(m.first);
  for (auto& m : g.input_mutations) bring_back(m.first);
  return inserted;
}

}  // namespace tir
