// The registry: no duplicates, every vertical-slice op has a reference CPU kernel, and which
// kernels take channels-last arguments.
#include "kernels/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

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

// The layout pass (runtime/passes/layout.h) asks per argument: a convolution's input, a pool's or
// mean's input and both operands of mul.Tensor (a squeeze-excitation block) may be
// channels-last on the optimized CPU kernels; weights and every reference kernel stay plain.
TEST(Registry, ChannelsLastArguments) {
  const KernelRegistry& reg = KernelRegistry::global();
  struct Want {
    const char* op;
    std::vector<size_t> args;  // accepted; the others up to 3 are not
  };
  const Want wants[] = {
      {"aten::conv2d", {0}},   {"aten::convolution", {0}},   {"aten::adaptive_avg_pool2d", {0}},
      {"aten::mean.dim", {0}}, {"aten::mul.Tensor", {0, 1}}, {"aten::add.Tensor", {}},
      {"aten::relu", {}}};
  for (const Want& w : wants) {
    for (KernelImpl impl : {KernelImpl::kOptimized, KernelImpl::kReference}) {
      const KernelEntry* e = reg.find_exact(w.op, DeviceType::kCpu, DType::kFloat32, impl);
      ASSERT_NE(e, nullptr) << w.op;
      for (size_t arg = 0; arg < 4; ++arg) {
        const bool want = impl == KernelImpl::kOptimized &&
                          std::find(w.args.begin(), w.args.end(), arg) != w.args.end();
        EXPECT_EQ(e->caps.accepts_channels_last(arg), want) << w.op << " argument " << arg;
      }
    }
  }
}

}  // namespace
}  // namespace tir::kernels
