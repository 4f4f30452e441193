#include "kernels/registry.h"

namespace tir::kernels {

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry registry;
  return registry;
}

bool KernelRegistry::add(std::initializer_list<KernelEntry> entries) {
  for (const KernelEntry& e : entries) {
    if (find_exact(e.op, e.device, e.dtype, e.impl) != nullptr) {
      duplicates_.push_back(e.op + "/" + std::string(dtype_name(e.dtype)));
      continue;
    }
    entries_.push_back(e);
  }
  return true;
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
  for (DType d : {dtype, DType::kUndefined}) {
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
  if (duplicates_.empty()) return ok_status();
  std::string list;
  for (const std::string& d : duplicates_) list += (list.empty() ? "" : ", ") + d;
  return make_error(StatusCode::kInternal, "duplicate kernel registrations: ", list);
}

}  // namespace tir::kernels
