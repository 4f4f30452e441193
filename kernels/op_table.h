// The kernel registry's entries as data: which ops have kernels, on which device, for which
// dtypes, reference or optimized. kernels/gen_op_table writes the table at build time from
// KernelRegistry::global(), so the registry stays the only hand-written list of ops, while
// code that only asks which ops exist (the importer's kernel check, `tirc ops`) links this
// small library (tir_op_table) instead of the kernels with oneDNN and Eigen.
#pragma once

#include <span>
#include <string_view>

#include "core/dtype.h"
#include "core/tensor.h"
#include "kernels/registry.h"  // KernelImpl only: the table links without the kernels

namespace tir::kernels {

/// One registry entry without its factory.
struct OpTableEntry {
  std::string_view op;  // "aten::relu", "aten::add.Tensor"
  DeviceType device;
  DType dtype;  // dtype of the first tensor input; kUndefined = any dtype
  KernelImpl impl;
};

/// Every entry of the kernel registry, in the order the build's registry held them. Static
/// storage; never changes while the process runs.
std::span<const OpTableEntry> op_table();

/// True when some kernel for `op` exists on `device`, any dtype (KernelRegistry::has_op
/// answered from the table).
bool op_table_has_op(std::string_view op, DeviceType device);

}  // namespace tir::kernels
