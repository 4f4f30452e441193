#include "kernels/registry.h"

#include <algorithm>

namespace tir::kernels {

// KernelRegistry::global() is defined with the built-in backends (builtin_kernels.cc), so
// that a library that fills registries of its own (the CUDA module) links this file without
// them.

namespace {

/// "aten::relu (cpu, float32)", for registration errors.
std::string entry_name(std::string_view op, Backend backend, DType dtype) {
  return std::string(op) + " (" + std::string(backend_name(backend)) + ", " +
         std::string(dtype == DType::kUndefined ? "any dtype" : dtype_name(dtype)) + ")";
}

}  // namespace

void KernelRegistry::add(std::initializer_list<KernelEntry> entries) {
  for (KernelEntry e : entries) {
    const Backend backend = e.backend();
    const OpRow* row = find_op_row(e.op);
    const char* error = !row ? ": no row in the op catalogue"
                        : !row->dtypes(backend).contains(e.dtype)
                            ? ": the catalogue row does not list this dtype"
                        : find_exact(e.op, e.device, e.dtype, e.impl) ? ": registered twice"
                                                                      : nullptr;
    if (error) {
      errors_.push_back(entry_name(e.op, backend, e.dtype) + error);
      continue;
    }
    e.caps = row->caps_on(backend);
    entries_.push_back(std::move(e));
  }
}

Status KernelRegistry::add_custom(CustomKernel kernel) {
  if (!is_custom_op(kernel.op))
    return make_error(StatusCode::kInvalidArgument, "custom op '", kernel.op,
                      "': not a custom op name (expected namespace::name in a namespace of "
                      "its own, such as mylib::scaled_add; aten, prims and the other torch "
                      "namespaces take kernels through the op catalogue)");
  if (!kernel.make)
    return make_error(StatusCode::kInvalidArgument, "custom op '", kernel.op,
                      "': no kernel factory");
  if (kernel.dtypes.empty()) kernel.dtypes.push_back(DType::kUndefined);
  std::sort(kernel.dtypes.begin(), kernel.dtypes.end());
  kernel.dtypes.erase(std::unique(kernel.dtypes.begin(), kernel.dtypes.end()), kernel.dtypes.end());
  for (DType d : kernel.dtypes)
    if (find_exact(kernel.op, DeviceType::kCpu, d, KernelImpl::kReference))
      return make_error(StatusCode::kInvalidArgument, "custom op '", kernel.op, "' (",
                        d == DType::kUndefined ? "any dtype" : dtype_name(d),
                        "): registered twice");
  auto make =
      std::make_shared<const std::function<std::unique_ptr<Kernel>()>>(std::move(kernel.make));
  for (DType d : kernel.dtypes) {
    KernelEntry e{kernel.op, DeviceType::kCpu, d, KernelImpl::kReference, nullptr};
    e.custom_factory = make;
    entries_.push_back(std::move(e));
  }
  return ok_status();
}

void KernelRegistry::check_complete(Backend backend) {
  const DeviceType device = backend == Backend::kCuda ? DeviceType::kCuda : DeviceType::kCpu;
  const KernelImpl impl =
      backend == Backend::kReference ? KernelImpl::kReference : KernelImpl::kOptimized;
  for (const FamilyTable& table : op_catalogue())
    for (const OpRow& row : table.rows)
      row.dtypes(backend).for_each([&](DType d) {
        if (find_exact(row.op, device, d, impl)) return;
        errors_.push_back(entry_name(row.op, backend, d) +
                          ": listed in the op catalogue, no kernel registered");
      });
}

const KernelEntry* KernelRegistry::find_exact(std::string_view op, DeviceType device, DType dtype,
                                              KernelImpl impl) const {
  for (const KernelEntry& e : entries_) {
    if (e.op == op && e.device == device && e.dtype == dtype && e.impl == impl) return &e;
  }
  return nullptr;
}

const KernelEntry* KernelRegistry::find(std::string_view op, DeviceType device, DType dtype,
                                        KernelImpl preferred) const {
  const KernelImpl other =
      preferred == KernelImpl::kOptimized ? KernelImpl::kReference : KernelImpl::kOptimized;
  // An any-dtype kernel computes on the real dtypes it knows; a complex tensor reaches it only
  // when its row says the kernels move elements without reading them (all_dtypes).
  const OpRow* row = dtype_is_complex(dtype) ? find_op_row(op) : nullptr;
  const bool any_ok = !dtype_is_complex(dtype) || (row && row->caps.all_dtypes);
  for (DType d : {dtype, DType::kUndefined}) {
    if (d == DType::kUndefined && !any_ok) break;
    for (KernelImpl impl : {preferred, other}) {
      if (const KernelEntry* e = find_exact(op, device, d, impl)) return e;
    }
  }
  return nullptr;
}

bool KernelRegistry::has_op(std::string_view op, DeviceType device) const {
  for (const KernelEntry& e : entries_) {
    if (e.op == op && e.device == device) return true;
  }
  return false;
}

Status KernelRegistry::registration_status() const {
  if (errors_.empty()) return ok_status();
  std::string list;
  for (const std::string& d : errors_) list += (list.empty() ? "" : "; ") + d;
  return make_error(StatusCode::kInternal, "kernel registration: ", list);
}

}  // namespace tir::kernels
