// Devices (runtime/devices/device.h): the process CPU device is one shared instance, each made CPU
// device owns a context of its own, the reference device runs reference kernels only and has
// no context, and every device allocates aligned memory it can copy to and from.
#include "runtime/devices/device.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/registry.h"
#include "runtime/devices/host_device.h"

namespace tir {
namespace {

using kernels::KernelImpl;
using kernels::KernelRegistry;

TEST(Device, ProcessCpuDeviceIsOneSharedInstance) {
  const std::shared_ptr<Device>& a = cpu_device();
  const std::shared_ptr<Device>& b = cpu_device();
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(&a, &b);
  EXPECT_NE(a->context(), nullptr);
  EXPECT_EQ(a->context(), b->context());
  EXPECT_EQ(a->name(), "cpu");
  EXPECT_EQ(a->type(), DeviceType::kCpu);
  EXPECT_TRUE(a->host_accessible());
}

TEST(Device, EachMadeCpuDeviceHasItsOwnContext) {
  const auto a = make_cpu_device();
  const auto b = make_cpu_device();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_NE(a.get(), b.get());
  EXPECT_NE(a.get(), cpu_device().get());
  ASSERT_NE(a->context(), nullptr);
  ASSERT_NE(b->context(), nullptr);
  EXPECT_NE(a->context(), b->context());
  EXPECT_NE(a->context(), cpu_device()->context());
  EXPECT_EQ(a->context(), a->context());  // owned, not made per call
  EXPECT_EQ(a->name(), "cpu");
}

TEST(Device, ReferenceDeviceRunsOnlyReferenceKernels) {
  const auto ref = make_reference_device();
  EXPECT_EQ(ref->name(), "reference");
  EXPECT_EQ(ref->type(), DeviceType::kCpu);
  EXPECT_TRUE(ref->host_accessible());
  EXPECT_EQ(ref->context(), nullptr);
  EXPECT_NE(make_reference_device().get(), ref.get());  // a new one per call

  // Ops with an optimized kernel: the CPU device picks it, the reference device the oracle.
  for (const char* op : {"aten::addmm", "aten::linear", "aten::conv2d"}) {
    SCOPED_TRACE(op);
    const kernels::KernelEntry* r = ref->find_kernel(op, DType::kFloat32);
    const kernels::KernelEntry* c = cpu_device()->find_kernel(op, DType::kFloat32);
    ASSERT_NE(r, nullptr);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(r->impl, KernelImpl::kReference);
    EXPECT_EQ(c->impl, KernelImpl::kOptimized);
    EXPECT_EQ(r->op, op);
    EXPECT_EQ(c->op, op);
    EXPECT_NE(r->factory, c->factory);
    EXPECT_TRUE(ref->supports(op, DType::kFloat32));
  }
  // Over the whole registry: whatever the reference device finds is a reference kernel of
  // that op, for that dtype or any; it finds one for every op that has one.
  const KernelRegistry& registry = KernelRegistry::global();
  size_t checked = 0;
  for (const kernels::KernelEntry& e : registry.entries()) {
    if (e.device != DeviceType::kCpu) continue;
    const DType dtype = e.dtype == DType::kUndefined ? DType::kFloat32 : e.dtype;
    const kernels::KernelEntry* r = ref->find_kernel(e.op, dtype);
    const bool has_reference =
        registry.find_exact(e.op, DeviceType::kCpu, dtype, KernelImpl::kReference) ||
        registry.find_exact(e.op, DeviceType::kCpu, DType::kUndefined, KernelImpl::kReference);
    EXPECT_EQ(r != nullptr, has_reference) << e.op;
    if (!r) continue;
    EXPECT_EQ(r->impl, KernelImpl::kReference) << e.op;
    EXPECT_EQ(r->op, e.op);
    EXPECT_TRUE(r->dtype == dtype || r->dtype == DType::kUndefined) << e.op;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

TEST(Device, CpuDeviceFallsBackToReferenceKernels) {
  // An op with only a reference kernel still runs on the CPU device; unknown ops nowhere.
  const KernelRegistry& registry = KernelRegistry::global();
  const kernels::KernelEntry* only_ref = nullptr;
  for (const kernels::KernelEntry& e : registry.entries())
    if (e.impl == KernelImpl::kReference && e.dtype == DType::kFloat32 &&
        !registry.find_exact(e.op, DeviceType::kCpu, DType::kFloat32, KernelImpl::kOptimized) &&
        !registry.find_exact(e.op, DeviceType::kCpu, DType::kUndefined, KernelImpl::kOptimized)) {
      only_ref = &e;
      break;
    }
  ASSERT_NE(only_ref, nullptr);
  EXPECT_EQ(cpu_device()->find_kernel(only_ref->op, DType::kFloat32), only_ref);
  EXPECT_EQ(make_reference_device()->find_kernel(only_ref->op, DType::kFloat32), only_ref);
  for (const auto& d : {cpu_device(), make_reference_device()}) {
    EXPECT_EQ(d->find_kernel("aten::no_such_op", DType::kFloat32), nullptr);
    EXPECT_FALSE(d->supports("aten::no_such_op", DType::kFloat32));
  }
}

TEST(Device, AllocatesAlignedMemoryAndCopiesBetweenDevices) {
  const std::vector<std::shared_ptr<Device>> devices = {cpu_device(), make_cpu_device(),
                                                        make_reference_device()};
  std::vector<float> host(1000);
  std::iota(host.begin(), host.end(), 0.5f);
  const size_t bytes = host.size() * sizeof(float);
  for (const auto& a : devices)
    for (const auto& b : devices) {
      SCOPED_TRACE(std::string(a->name()) + " -> " + std::string(b->name()));
      auto pa = a->alloc(bytes, 64);
      auto pb = b->alloc(bytes, 64);
      ASSERT_TRUE(pa.ok() && pb.ok());
      EXPECT_EQ(reinterpret_cast<uintptr_t>(*pa) % 64, 0u);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(*pb) % 64, 0u);
      // host -> a -> b -> host
      ASSERT_TRUE(a->copy_from(*pa, *cpu_device(), host.data(), bytes).ok());
      std::memset(*pb, 0, bytes);
      ASSERT_TRUE(b->copy_from(*pb, *a, *pa, bytes).ok());
      ASSERT_TRUE(b->synchronize().ok());
      std::vector<float> back(host.size(), -1.0f);
      ASSERT_TRUE(cpu_device()->copy_from(back.data(), *b, *pb, bytes).ok());
      EXPECT_EQ(back, host);
      ASSERT_TRUE(b->copy_from(*pb, *a, *pa, 0).ok());  // nothing to copy
      a->free(*pa);
      b->free(*pb);
    }
}

TEST(Device, AllocHonoursLargerAlignmentsAndOddSizes) {
  for (const auto& d : {cpu_device(), make_reference_device()})
    for (size_t alignment : {64, 128, 4096})
      for (size_t bytes : {0, 1, 63, 64, 65, 1000, 4097}) {
        auto p = d->alloc(bytes, alignment);
        ASSERT_TRUE(p.ok()) << p.status().message();
        ASSERT_NE(*p, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % alignment, 0u)
            << d->name() << " " << bytes << " bytes aligned " << alignment;
        std::memset(*p, 0xab, bytes);  // the whole size is writable (ASan would say)
        d->free(*p);
      }
}

TEST(Device, AllocErrorNamesDeviceAndSize) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer aborts on an impossible allocation";
#endif
  const auto ref = make_reference_device();
  auto p = ref->alloc(size_t(1) << 62, 64);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("device 'reference'"), std::string::npos)
      << p.status().message();
  EXPECT_NE(p.status().message().find(std::to_string(size_t(1) << 62)), std::string::npos)
      << p.status().message();
}

// A size near SIZE_MAX must not wrap to a few bytes when rounded up to the alignment.
TEST(Device, AllocOfASizeThatWrapsFails) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer aborts on an impossible allocation";
#endif
  for (const auto& d : {cpu_device(), make_reference_device()}) {
    auto p = d->alloc(SIZE_MAX - 10, 64);
    EXPECT_FALSE(p.ok()) << d->name();
    if (p.ok()) d->free(*p);
  }
}

/// A device that computes float32 whatever is asked (as the CUDA device does).
class Float32OnlyDevice final : public HostDevice {
 public:
  std::string_view name() const override { return "f32-only"; }
  const kernels::KernelEntry* find_kernel(std::string_view, DType) const override {
    return nullptr;
  }
  bool supports_op(std::string_view) const override { return false; }
  Precision precision(Precision) const override { return Precision::kFloat32; }
  kernels::DeviceContext* context() override { return nullptr; }
};

TEST(Device, ASessionComputesInAPrecisionEveryDeviceOffers) {
  using P = Precision;
  const std::vector<std::shared_ptr<Device>> none;
  const std::vector<std::shared_ptr<Device>> cpu = {cpu_device()};
  const std::vector<std::shared_ptr<Device>> ref = {make_reference_device()};
  const std::vector<std::shared_ptr<Device>> mixed = {cpu_device(),
                                                      std::make_shared<Float32OnlyDevice>()};
  // int8 runs on every CPU; the reference kernels leave the choice to the others.
  EXPECT_EQ(devices_precision(none, P::kInt8), P::kInt8);
  EXPECT_EQ(devices_precision(cpu, P::kInt8), P::kInt8);
  EXPECT_EQ(devices_precision(ref, P::kInt8), P::kInt8);
  EXPECT_EQ(devices_precision(mixed, P::kInt8), P::kFloat32);
  EXPECT_EQ(devices_precision(mixed, P::kFloat32), P::kFloat32);
  EXPECT_EQ(devices_precision(cpu, P::kBFloat16), cpu_device()->precision(P::kBFloat16));
  EXPECT_FALSE(cpu_device()->supports_op("aten::no_such_op"));
  EXPECT_TRUE(cpu_device()->supports_op("aten::addmm"));
}

}  // namespace
}  // namespace tir
