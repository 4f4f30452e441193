// The registry: no duplicates, every vertical-slice op has a reference CPU kernel.
#include "kernels/registry.h"

#include <gtest/gtest.h>

namespace tir::kernels {
namespace {

TEST(Registry, NoDuplicateRegistrations) {
  const Status s = KernelRegistry::global().registration_status();
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(Registry, EveryOpHasAReferenceKernel) {
  const char* ops[] = {"aten::linear",
                       "aten::addmm",
                       "aten::mm",
                       "aten::t",
                       "aten::conv2d",
                       "aten::convolution",
                       "aten::batch_norm",
                       "aten::_native_batch_norm_legit_no_training",
                       "aten::relu",
                       "aten::relu_",
                       "aten::max_pool2d",
                       "aten::max_pool2d_with_indices",
                       "aten::adaptive_avg_pool2d",
                       "aten::mean.dim",
                       "aten::flatten.using_ints",
                       "aten::view",
                       "aten::reshape",
                       "aten::_unsafe_view",
                       "aten::permute",
                       "aten::add.Tensor",
                       "aten::add_.Tensor",
                       "aten::add.Scalar",
                       "aten::sub.Tensor",
                       "aten::mul.Tensor",
                       "aten::mul.Scalar",
                       "aten::div.Tensor",
                       "aten::sin",
                       "aten::cos",
                       "aten::clone",
                       "aten::alias",
                       "aten::detach",
                       "aten::contiguous",
                       "aten::unsqueeze",
                       "aten::squeeze.dim",
                       "aten::dropout"};
  const KernelRegistry& reg = KernelRegistry::global();
  for (const char* op : ops) {
    const KernelEntry* e = reg.find(op, DeviceType::kCpu, DType::kFloat32, KernelImpl::kReference);
    ASSERT_NE(e, nullptr) << op;
    EXPECT_EQ(e->impl, KernelImpl::kReference) << op;
    EXPECT_NE(e->factory(), nullptr) << op;
  }
}

TEST(Registry, OptimizedKernelsArePreferred) {
  const KernelEntry* e =
      KernelRegistry::global().find("aten::linear", DeviceType::kCpu, DType::kFloat32);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->impl, KernelImpl::kOptimized);
}

}  // namespace
}  // namespace tir::kernels
