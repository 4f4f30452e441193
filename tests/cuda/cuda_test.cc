// The CUDA device (the module libtir_cuda.so: runtime/devices/cuda_device.cc, kernels/cuda/,
// loaded by runtime/devices/cuda_loader.h) and `--device cuda`. Without a usable GPU (CI, the
// development machines) the error path runs: one line naming the device, from
// make_cuda_device, Session::open and tirrun alike, and the module's kernel registry is
// checked (loading it needs the CUDA libraries, not a GPU); the GPU cases skip, saying why.
// With one, every runnable torch fixture runs on the GPU (the CPU running the ops it lacks)
// and must match torch eager and tir's CPU run.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/registry.h"
#include "runtime/devices/cuda_loader.h"
#include "runtime/exec/device_select.h"
#include "runtime/passes/exec_graph.h"
#include "tests/common/cli_util.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

/// The GPU, or null with `why` saying what is missing.
std::shared_ptr<Device> usable_gpu(std::string* why) {
  auto d = make_cuda_device();
  if (!d.ok()) {
    *why = d.status().message();
    return nullptr;
  }
  return *d;
}

#define TIR_REQUIRE_GPU(var)                                  \
  std::string why_##var;                                      \
  const std::shared_ptr<Device> var = usable_gpu(&why_##var); \
  if (!var) GTEST_SKIP() << "needs a usable GPU: " << why_##var

TEST(CudaDevice, UnusableGpuIsOneLineNamingTheDevice) {
  std::string why;
  if (usable_gpu(&why)) GTEST_SKIP() << "a GPU is usable here: the error path cannot run";
  EXPECT_EQ(why.rfind("device 'cuda': ", 0), 0u) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_NE(why.find(cuda_built() ? "no usable GPU" : "built without CUDA"), std::string::npos)
      << why;

  auto selected = select_device("cuda:0");
  ASSERT_FALSE(selected.ok());
  EXPECT_EQ(selected.status().message(), why);

  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/mlp/core";
  ASSERT_TRUE(testing::import_fixture(dir, tmp));
  SessionOptions o;
  o.device = "cuda";
  auto session = Session::open(tmp.file("m.tir"), tmp.file("m.bin"), o);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(), why);

  const testing::Proc p = testing::tirrun(testing::q(tmp.file("m.tir")) + " --weights " +
                                          testing::q(tmp.file("m.bin")) + " --device cuda " +
                                          testing::q(dir + "/input_0.npy"));
  testing::expect_one_error_line(p, "error: " + why);
  EXPECT_TRUE(p.out.empty()) << p.out;
}

TEST(SelectDevice, NamesAreChecked) {
  for (const char* name : {"", "cpu"}) {
    auto s = select_device(name);
    ASSERT_TRUE(s.ok()) << s.status().message();
    ASSERT_EQ(s->devices.size(), 1u);
    EXPECT_EQ(s->devices[0].get(), cpu_device().get());
    EXPECT_FALSE(s->placement);
  }
  auto tpu = select_device("tpu");
  ASSERT_FALSE(tpu.ok());
  EXPECT_EQ(tpu.status().message(), "unknown device 'tpu' (expected cpu, cuda or cuda:N)");
  for (const char* bad : {"cuda:", "cuda:x", "cuda:1x"}) {
    auto s = select_device(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("expected cuda:N"), std::string::npos)
        << s.status().message();
  }
}

/// The CUDA module's kernels, or null with `why` saying why the module did not load.
const kernels::KernelRegistry* cuda_kernels(std::string* why) {
  auto backend = cuda_backend();
  if (!backend.ok()) {
    *why = backend.status().message();
    return nullptr;
  }
  return (*backend)->kernels;
}

TEST(CudaKernels, RegisteredForWhatGpt2AndBertNeed) {
  if (!cuda_built()) GTEST_SKIP() << "this tir was built without CUDA (-Dcuda)";
  std::string why;
  const kernels::KernelRegistry* kernels = cuda_kernels(&why);
  ASSERT_NE(kernels, nullptr) << why;
  const kernels::KernelRegistry& registry = *kernels;
  ASSERT_TRUE(registry.registration_status().ok()) << registry.registration_status().message();
  for (const char* op : {"aten::addmm",
                         "aten::mm",
                         "aten::linear",
                         "aten::bmm",
                         "aten::matmul",
                         "aten::baddbmm",
                         "aten::native_layer_norm",
                         "aten::layer_norm",
                         "aten::_softmax",
                         "aten::embedding",
                         "aten::gelu",
                         "aten::tanh",
                         "aten::relu",
                         "aten::silu",
                         "aten::add.Tensor",
                         "aten::mul.Tensor",
                         "aten::mul.Scalar",
                         "aten::sub.Tensor",
                         "aten::div.Tensor",
                         "aten::pow.Tensor_Scalar",
                         "aten::view",
                         "aten::permute",
                         "aten::expand",
                         "aten::clone",
                         "aten::unsqueeze",
                         "aten::slice.Tensor",
                         "aten::split_with_sizes",
                         "aten::cat"}) {
    const kernels::KernelEntry* e =
        registry.find(op, DeviceType::kCuda, DType::kFloat32, kernels::KernelImpl::kOptimized);
    ASSERT_NE(e, nullptr) << op;
    EXPECT_EQ(e->device, DeviceType::kCuda) << op;
    EXPECT_EQ(e->op, op);
  }
  // Integer and bool tensors stay with their CPU producers: no CUDA kernel takes them.
  EXPECT_EQ(registry.find_exact("aten::view", DeviceType::kCuda, DType::kInt64,
                                kernels::KernelImpl::kOptimized),
            nullptr);
  EXPECT_FALSE(registry.has_op("aten::where.self", DeviceType::kCuda));
  // The process's registry has none: the CUDA kernels live in the module alone.
  EXPECT_FALSE(kernels::KernelRegistry::global().has_op("aten::mm", DeviceType::kCuda));
}

/// The module's registry holds exactly what the op catalogue lists for the cuda backend.
TEST(CudaKernels, MatchTheCatalogue) {
  if (!cuda_built()) GTEST_SKIP() << "this tir was built without CUDA (-Dcuda)";
  std::string why;
  const kernels::KernelRegistry* registry = cuda_kernels(&why);
  ASSERT_NE(registry, nullptr) << why;
  using Key = std::tuple<std::string, DType>;
  std::set<Key> want, got;
  for (const kernels::FamilyTable& table : kernels::op_catalogue())
    for (const kernels::OpRow& row : table.rows)
      row.dtypes(kernels::Backend::kCuda).for_each([&](DType d) {
        want.emplace(std::string(row.op), d);
      });
  for (const kernels::KernelEntry& e : registry->entries()) {
    EXPECT_EQ(e.device, DeviceType::kCuda) << e.op;
    EXPECT_EQ(e.impl, kernels::KernelImpl::kOptimized) << e.op;
    got.emplace(e.op, e.dtype);
  }
  EXPECT_EQ(got, want);
}

/// The gpt2 fixture (core IR) opened on the GPU, and its input ids.
void open_gpt2_on_gpu(const TempDir& tmp, std::unique_ptr<Session>* session, HostTensor* ids) {
  const std::string dir = testing::fixture_dir() + "/gpt2/core";
  SessionOptions o;
  o.device = "cuda";
  auto opened = testing::open_fixture(dir, tmp, o);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  auto read = npy_read(dir + "/input_0.npy");
  ASSERT_TRUE(read.ok()) << read.status().message();
  *session = std::move(opened).value();
  *ids = std::move(read).value();
}

TEST(CudaDevice, CopiesRoundTripThroughStaging) {
  TIR_REQUIRE_GPU(gpu);
  EXPECT_EQ(gpu->name(), "cuda");
  EXPECT_FALSE(gpu->host_accessible());
  // 10 MiB + 3 bytes: more than both 4 MiB staging buffers, and an odd tail.
  const size_t n = (size_t{10} << 20) + 3;
  std::vector<uint8_t> src(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  auto a = gpu->alloc(n, 64);
  auto b = gpu->alloc(n, 256);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(gpu->copy_from(*a, *cpu_device(), src.data(), n).ok());
  ASSERT_TRUE(gpu->copy_from(*b, *gpu, *a, n).ok());  // device to device
  ASSERT_TRUE(gpu->copy_to(back.data(), *cpu_device(), *b, n).ok());
  EXPECT_EQ(src, back);
  gpu->free(*a);
  gpu->free(*b);
  auto huge = gpu->alloc(size_t{1} << 50, 64);  // 1 PiB
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("device 'cuda': cannot allocate"), std::string::npos);
  // The failed allocation is not reported again by this thread's next kernel launch.
  TempDir tmp;
  std::unique_ptr<Session> session;
  HostTensor ids;
  ASSERT_NO_FATAL_FAILURE(open_gpt2_on_gpu(tmp, &session, &ids));
  auto r = session->run(std::vector<Tensor>{ids.view()});
  EXPECT_TRUE(r.ok()) << r.status().message();
}

/// Every runnable fixture on the GPU against torch eager (the fixture's own tolerance) and
/// against tir's CPU run of the same inputs.
class CudaFixture : public ::testing::TestWithParam<nlohmann::json> {};

TEST_P(CudaFixture, MatchesTorchAndTheCpu) {
  TIR_REQUIRE_GPU(gpu);
  const nlohmann::json& f = GetParam();
  const std::string dir = testing::fixture_dir() + "/" + f["dir"].get<std::string>();
  TempDir tmp;
  SessionOptions o;
  o.device = "cuda";
  testing::FixtureRun cuda = testing::run_fixture_once(dir, f, tmp, o);
  ASSERT_TRUE(cuda.session);
  TempDir tmp_cpu;
  testing::FixtureRun cpu = testing::run_fixture_once(dir, f, tmp_cpu);
  ASSERT_TRUE(cpu.session);
  const auto expected = testing::read_all(dir, f["outputs"]);
  ASSERT_EQ(cuda.outputs.size(), expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    EXPECT_TRUE(
        testing::all_close(cuda.outputs[k].view(), expected[k].view(), f["rtol"], f["atol"]))
        << "output " << k << " vs torch; " << cuda.session->placement_summary();
    EXPECT_TRUE(
        testing::all_close(cuda.outputs[k].view(), cpu.outputs[k].view(), f["rtol"], f["atol"]))
        << "output " << k << " vs CPU";
  }
  // A second run reuses the plan and the uploaded weights.
  auto again = cuda.session->run(testing::views(cuda.inputs));
  ASSERT_TRUE(again.ok()) << again.status().message();
  for (size_t k = 0; k < expected.size(); ++k)
    EXPECT_TRUE(testing::all_close((*again)[k], cuda.outputs[k].view(), 0, 0)) << "output " << k;
}

INSTANTIATE_TEST_SUITE_P(AllFixtures, CudaFixture,
                         ::testing::ValuesIn(testing::runnable_fixtures()), testing::FixtureName());

/// The transformer fixtures put their GEMMs, norms and softmax on the GPU; what the GPU has
/// no kernel for (mask logic on int64 and bool tensors) stays on the CPU and is named.
TEST(CudaPlacement, TransformersRunTheirHeavyOpsOnTheGpu) {
  TIR_REQUIRE_GPU(gpu);
  for (const char* model : {"gpt2", "bert"}) {
    SCOPED_TRACE(model);
    const std::string dir = testing::fixture_dir() + "/" + model + "/core";
    TempDir tmp;
    SessionOptions o;
    o.device = "cuda";
    auto session = testing::open_fixture(dir, tmp, o);
    ASSERT_TRUE(session.ok()) << session.status().message();
    size_t on_gpu = 0, heavy = 0;
    for (const ExecNode& n : (*session)->exec_graph().nodes) {
      if (n.kind != StepKind::kKernel) continue;
      on_gpu += n.device == 1;
      if (n.op == "aten::addmm" || n.op == "aten::bmm" || n.op == "aten::native_layer_norm" ||
          n.op == "aten::_softmax") {
        ++heavy;
        EXPECT_EQ(n.device, 1) << n.name << " " << n.op;
      }
    }
    EXPECT_GT(heavy, 0u);
    EXPECT_GT(on_gpu, heavy);
    EXPECT_GT((*session)->num_copies(), 0u);
    const std::string summary = (*session)->placement_summary();
    EXPECT_NE(summary.find("cuda: "), std::string::npos) << summary;
    EXPECT_NE(summary.find("aten::where.self"), std::string::npos) << summary;
  }
}

TEST(CudaPlacement, EmbeddingIndexOutOfRangeIsAnError) {
  TIR_REQUIRE_GPU(gpu);
  TempDir tmp;
  std::unique_ptr<Session> session;
  HostTensor ids;
  ASSERT_NO_FATAL_FAILURE(open_gpt2_on_gpu(tmp, &session, &ids));
  ids.view().data_as<int64_t>()[0] = int64_t{1} << 40;
  auto r = session->run(std::vector<Tensor>{ids.view()});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("out of range"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace tir
