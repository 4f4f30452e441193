// Devices over a registry an application fills (runtime/devices/device.h
// make_cpu_device(registry)): a CPU device given only the reference backend runs every node on a
// reference kernel and still matches torch; a device whose registry lacks the model's ops refuses
// it at open, naming the op; the default devices keep using KernelRegistry::global().
#include <gtest/gtest.h>

#include "kernels/reference/register.h"
#include "tests/runtime/exec_fixture.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using kernels::KernelImpl;
using kernels::KernelRegistry;

constexpr const char* kFixture = "mlp/training";

std::string fixture_path() { return testing::fixture_dir() + "/" + kFixture; }

TEST(KernelSubset, ACpuDeviceOverTheReferenceBackendRunsOnlyReferenceKernels) {
  auto registry = std::make_shared<KernelRegistry>();
  kernels::register_reference(*registry);
  ASSERT_TRUE(registry->registration_status().ok());
  SessionOptions options;
  options.devices = {make_cpu_device(registry)};
  testing::TempDir tmp;
  const nlohmann::json f = testing::fixture_entry(kFixture);
  testing::FixtureRun run = testing::run_fixture_once(fixture_path(), f, tmp, options);
  ASSERT_TRUE(run.session);
  size_t kernels = 0;
  for (const ExecNode& n : run.session->exec_graph().nodes) {
    if (!n.kernel) continue;
    ++kernels;
    EXPECT_EQ(n.kernel->impl, KernelImpl::kReference) << n.name << " " << n.op;
    EXPECT_EQ(registry->find_exact(n.kernel->op, n.kernel->device, n.kernel->dtype,
                                   KernelImpl::kReference),
              n.kernel)
        << n.name << ": not an entry of the device's registry";
  }
  EXPECT_GT(kernels, 0u);
  const auto want = testing::read_all(fixture_path(), f["outputs"]);
  ASSERT_EQ(run.outputs.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k)
    EXPECT_TRUE(testing::all_close(run.outputs[k].view(), want[k].view(), 1e-4, 1e-5));

  // The default CPU device draws from the global registry: optimized kernels where they exist.
  testing::TempDir tmp2;
  testing::FixtureRun plain = testing::run_fixture_once(fixture_path(), f, tmp2, {});
  ASSERT_TRUE(plain.session);
  size_t optimized = 0;
  for (const ExecNode& n : plain.session->exec_graph().nodes)
    optimized += n.kernel && n.kernel->impl == KernelImpl::kOptimized;
  EXPECT_GT(optimized, 0u);
}

TEST(KernelSubset, ADeviceWithoutTheModelsOpsRefusesItAtOpen) {
  SessionOptions options;
  options.devices = {make_cpu_device(std::make_shared<KernelRegistry>())};
  testing::TempDir tmp;
  auto session = testing::open_fixture(fixture_path(), tmp, options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(), "node 'linear': op aten::linear has no kernel");
}

}  // namespace
}  // namespace tir
