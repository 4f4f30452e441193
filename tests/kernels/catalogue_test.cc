// The op catalogue (kernels/ops/) and the registry the backends fill from it: every registered
// kernel is a catalogue row's dtype on its backend and every such dtype has a kernel; each op
// has one row; a registry filled with a subset of the backends holds only that subset.
#include "kernels/ops/catalogue.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

#include "kernels/reference/register.h"
#include "kernels/registry.h"

namespace tir::kernels {
namespace {

using Key = std::tuple<std::string, DeviceType, DType, KernelImpl>;

std::set<Key> catalogue_keys(std::initializer_list<Backend> backends) {
  std::set<Key> keys;
  for (const FamilyTable& table : op_catalogue())
    for (const OpRow& row : table.rows)
      for (Backend b : backends)
        row.dtypes(b).for_each([&](DType d) {
          keys.emplace(std::string(row.op),
                       b == Backend::kCuda ? DeviceType::kCuda : DeviceType::kCpu, d,
                       b == Backend::kReference ? KernelImpl::kReference : KernelImpl::kOptimized);
        });
  return keys;
}

std::set<Key> registry_keys(const KernelRegistry& registry) {
  std::set<Key> keys;
  for (const KernelEntry& e : registry.entries()) keys.emplace(e.op, e.device, e.dtype, e.impl);
  return keys;
}

// The global registry holds the reference and CPU kernels in every build; the CUDA kernels
// are in the CUDA module's registry (tests/cuda/cuda_test.cc checks that one).
TEST(OpCatalogue, MatchesTheRegistry) {
  const std::set<Key> want = catalogue_keys({Backend::kReference, Backend::kCpu});
  const KernelRegistry& registry = KernelRegistry::global();
  ASSERT_TRUE(registry.registration_status().ok()) << registry.registration_status().message();
  EXPECT_EQ(registry_keys(registry), want);
  EXPECT_EQ(registry.entries().size(), want.size());
}

TEST(OpCatalogue, EveryOpHasOneRowAndEveryRowAReferenceKernel) {
  std::set<std::string_view> seen;
  size_t rows = 0;
  for (const FamilyTable& table : op_catalogue()) {
    EXPECT_FALSE(table.rows.empty()) << family_name(table.family);
    for (const OpRow& row : table.rows) {
      ++rows;
      EXPECT_TRUE(seen.insert(row.op).second) << row.op << " has two rows";
      EXPECT_FALSE(row.reference.empty()) << row.op << " has no reference kernel";
      Family family{};
      EXPECT_EQ(find_op_row(row.op, &family), &row) << row.op;
      EXPECT_EQ(family, table.family) << row.op;
    }
  }
  EXPECT_GT(rows, 250u);
}

TEST(OpCatalogue, HasOp) {
  EXPECT_TRUE(catalogue_has_op("aten::relu", DeviceType::kCpu));
  // Control flow is run by the executor (runtime/exec/control_flow.h), not by a kernel.
  EXPECT_FALSE(catalogue_has_op("higher_order::cond", DeviceType::kCpu));
  EXPECT_FALSE(catalogue_has_op("aten::special_bessel_j0", DeviceType::kCpu));
  EXPECT_TRUE(catalogue_has_op("aten::relu", DeviceType::kCuda));
  EXPECT_FALSE(catalogue_has_op("aten::cumsum", DeviceType::kCuda));
}

// An application may register a subset: here the reference kernels alone.
TEST(OpCatalogue, ARegistryOfOneBackendHoldsOnlyIt) {
  KernelRegistry registry;
  register_reference(registry);
  EXPECT_TRUE(registry.registration_status().ok()) << registry.registration_status().message();
  EXPECT_EQ(registry_keys(registry), catalogue_keys({Backend::kReference}));
  const KernelEntry* linear = registry.find("aten::linear", DeviceType::kCpu, DType::kFloat32);
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->impl, KernelImpl::kReference);
  EXPECT_TRUE(linear->caps.epilogue);
}

TEST(OpCatalogue, TheRegistryRefusesWhatTheCatalogueDoesNotList) {
  KernelRegistry registry;
  const KernelFactory factory =
      KernelRegistry::global().find("aten::relu", DeviceType::kCpu, DType::kFloat32)->factory;
  registry.add(
      {{"aten::special_bessel_j0", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference,
        factory},
       {"aten::relu", DeviceType::kCpu, DType::kFloat16, KernelImpl::kReference, factory},
       {"aten::relu", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference, factory},
       {"aten::relu", DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference, factory}});
  EXPECT_EQ(registry.entries().size(), 1u);
  const std::string message = registry.registration_status().message();
  EXPECT_NE(
      message.find("aten::special_bessel_j0 (reference, float32): no row in the op catalogue"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("aten::relu (reference, float16): the catalogue row does not list"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("aten::relu (reference, float32): registered twice"), std::string::npos)
      << message;
  registry.check_complete(Backend::kReference);
  EXPECT_NE(
      registry.registration_status().message().find(
          "aten::gelu (reference, float32): listed in the op catalogue, no kernel registered"),
      std::string::npos);
}

}  // namespace
}  // namespace tir::kernels
