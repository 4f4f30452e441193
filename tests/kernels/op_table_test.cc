// The generated op table (kernels/gen_op_table) holds exactly the registry's entries.
#include "kernels/op_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

namespace tir::kernels {
namespace {

TEST(OpTable, MatchesTheRegistry) {
  // Compared as sets: static initialisation may register kernels in another order here.
  using Key = std::tuple<std::string, DeviceType, DType, KernelImpl>;
  std::set<Key> registry, table;
  for (const KernelEntry& e : KernelRegistry::global().entries())
    registry.emplace(e.op, e.device, e.dtype, e.impl);
  for (const OpTableEntry& e : op_table())
    EXPECT_TRUE(table.emplace(std::string(e.op), e.device, e.dtype, e.impl).second) << e.op;
  EXPECT_TRUE(table == registry) << "the op table is stale: rebuild tir_op_table";
}

TEST(OpTable, HasOp) {
  EXPECT_TRUE(op_table_has_op("aten::relu", DeviceType::kCpu));
  // Control flow is run by the executor (runtime/control_flow.h), not by a kernel.
  EXPECT_FALSE(op_table_has_op("higher_order::cond", DeviceType::kCpu));
  EXPECT_FALSE(op_table_has_op("aten::erfinv", DeviceType::kCpu));
  EXPECT_FALSE(op_table_has_op("aten::relu", DeviceType::kCuda));
}

}  // namespace
}  // namespace tir::kernels
