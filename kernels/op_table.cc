#include "kernels/op_table.h"

namespace tir::kernels {

bool op_table_has_op(std::string_view op, DeviceType device) {
  for (const OpTableEntry& e : op_table()) {
    if (e.op == op && e.device == device) return true;
  }
  return false;
}

}  // namespace tir::kernels
