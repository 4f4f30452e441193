// Weights uploaded once (runtime/exec/device_uploads.h) to a device the host cannot address, on a
// machine without one: a test device keeps its memory on the host but says it is not host
// accessible, runs the CPU kernels and counts the bytes copied to it. The GPU device takes the
// same path (tests/cuda/cuda_test.cc runs it where a GPU is usable).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "ir/model.h"
#include "ir/weight_file.h"
#include "runtime/exec/session.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

namespace fb = ir::fb;
using testing::scaled_weights;
using testing::TempDir;

class RemoteDevice final : public Device {
 public:
  std::string_view name() const override { return "remote"; }
  DeviceType type() const override { return DeviceType::kCpu; }
  bool host_accessible() const override { return false; }
  Result<void*> alloc(size_t bytes, size_t alignment) override {
    return std::aligned_alloc(alignment,
                              (bytes + alignment - 1) / alignment * alignment + alignment);
  }
  void free(void* ptr) override { std::free(ptr); }
  Status copy_from(void* dst, const Device&, const void* src, size_t bytes) override {
    uploaded += bytes;
    std::memcpy(dst, src, bytes);
    return ok_status();
  }
  Status copy_to(void* dst, const Device&, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return ok_status();
  }
  Status synchronize() override { return ok_status(); }
  const kernels::KernelEntry* find_kernel(std::string_view op, DType dtype) const override {
    return cpu_device()->find_kernel(op, dtype);
  }
  bool supports_op(std::string_view op) const override { return cpu_device()->supports_op(op); }
  Precision precision(Precision asked) const override { return cpu_device()->precision(asked); }
  kernels::DeviceContext* context() override { return cpu_device()->context(); }

  std::atomic<size_t> uploaded{0};
};

std::vector<HostTensor> run_on_cpu(const std::shared_ptr<const DataSource>& model,
                                   std::shared_ptr<const WeightSet> set,
                                   const std::vector<HostTensor>& inputs) {
  auto s = Session::create(model, std::move(set));
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  auto r = (*s)->run(testing::views(inputs));
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? testing::copies(*r) : std::vector<HostTensor>{};
}

TEST(DeviceUploads, WeightsCrossOncePerBindingAndSwapsUploadTheNewOnes) {
  set_num_threads(1);  // bitwise comparisons
  TempDir tmp;
  const std::string dir = testing::fixture_dir() + "/gpt2/core";
  ASSERT_TRUE(testing::import_fixture(dir, tmp));
  auto model = data_source_mmap(tmp.file("m.tir"));
  auto a = WeightSet::open(tmp.file("m.bin"));
  ASSERT_TRUE(model.ok() && a.ok());
  const auto b = scaled_weights(tmp.file("m.bin"), 0.5f);
  ASSERT_NE(b, nullptr);
  const auto inputs = testing::read_all(dir, {{{"file", "input_0.npy"}}});
  const auto want_a = run_on_cpu(*model, *a, inputs);
  const auto want_b = run_on_cpu(*model, b, inputs);
  ASSERT_FALSE(testing::bitwise_equal(testing::views(want_a), want_b));
  const size_t input_bytes = inputs[0].view().nbytes();

  auto remote = std::make_shared<RemoteDevice>();
  SessionOptions o;
  o.devices = {cpu_device(), remote};
  o.placement = [](const ExecNode&, size_t) { return DeviceId{1}; };
  auto s = Session::create(*model, *a, o);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_GT((*s)->num_copies(), 0u);
  EXPECT_NE((*s)->placement_summary().find("remote: "), std::string::npos)
      << (*s)->placement_summary();

  const size_t before = remote->uploaded;
  auto r1 = (*s)->run(testing::views(inputs));
  ASSERT_TRUE(r1.ok()) << r1.status().message();
  EXPECT_TRUE(testing::bitwise_equal(*r1, want_a));
  const size_t first = remote->uploaded - before;
  EXPECT_GT(first, (*a)->total_bytes() / 2) << "the weights cross on the first run";

  auto r2 = (*s)->run(testing::views(inputs));
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_TRUE(testing::bitwise_equal(*r2, want_a));
  const size_t second = remote->uploaded - before - first;
  // Later runs copy what the CPU computed (the input ids, masks), never the weights again.
  EXPECT_LT(second, (*a)->total_bytes() / 4);
  EXPECT_GE(second, input_bytes);

  ASSERT_TRUE((*s)->swap_weights(b).ok());
  const size_t at_swap = remote->uploaded;
  auto r3 = (*s)->run(testing::views(inputs));
  ASSERT_TRUE(r3.ok()) << r3.status().message();
  EXPECT_TRUE(testing::bitwise_equal(*r3, want_b)) << "the new weights, not the uploaded old ones";
  EXPECT_GT(remote->uploaded - at_swap, (*a)->total_bytes() / 2) << "uploaded again";

  ASSERT_TRUE((*s)->swap_weights(*a).ok());
  auto r4 = (*s)->run(testing::views(inputs));
  ASSERT_TRUE(r4.ok()) << r4.status().message();
  EXPECT_TRUE(testing::bitwise_equal(*r4, want_a));
}

}  // namespace
}  // namespace tir
