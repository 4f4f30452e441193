// KernelCall::epilogue on the fusable producers (linear, addmm, mm, conv2d, convolution):
// the oneDNN post-op path matches the reference kernel for every activation, and the
// reference applies the activation's definition to its plain output. Tolerance as in
// gemm_test/conv_test (float vs double accumulation), inputs in [-3, 3] so that relu6 clips.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>

#include "tests/kernels/kernel_harness.h"

namespace tir::kernels::testing {
namespace {

constexpr double kEpilogueTol = 1e-4;
using ops::UnaryKind;
constexpr UnaryKind kAll[] = {UnaryKind::kRelu,      UnaryKind::kGeluErf,     UnaryKind::kGeluTanh,
                              UnaryKind::kHardswish, UnaryKind::kHardsigmoid, UnaryKind::kSilu,
                              UnaryKind::kSigmoid,   UnaryKind::kTanh};

/// The activation as torch defines it, written out independently of kernels/epilogue.cc.
double torch_activation(UnaryKind a, double x) {
  const double relu6 = std::min(std::max(x + 3.0, 0.0), 6.0);
  switch (a) {
    case UnaryKind::kRelu:
      return std::max(x, 0.0);
    case UnaryKind::kGeluErf:
      return x * 0.5 * std::erfc(-x / std::sqrt(2.0));
    case UnaryKind::kGeluTanh:
      return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * std::pow(x, 3))));
    case UnaryKind::kHardswish:
      return x * relu6 / 6.0;
    case UnaryKind::kHardsigmoid:
      return relu6 / 6.0;
    case UnaryKind::kSilu:
      return x * (1.0 / (1.0 + std::exp(-x)));
    case UnaryKind::kSigmoid:
      return 1.0 / (1.0 + std::exp(-x));
    case UnaryKind::kTanh:
      return std::tanh(x);
    default:
      break;
  }
  return x;
}

/// A deque: CallBuilder's args point into itself, so the builders must never move.
std::deque<CallBuilder> producer_calls(std::mt19937& rng) {
  std::deque<CallBuilder> calls;
  CallBuilder& linear = calls.emplace_back("aten::linear");
  linear.tensor(Buffer::random(rng, {5, 24}, -1, 1))
      .tensor(Buffer::random(rng, {7, 24}, -1, 1))
      .tensor(Buffer::random(rng, {7}, -1, 1));
  CallBuilder& addmm = calls.emplace_back("aten::addmm");  // beta != 1: sum, then activation
  addmm.tensor(Buffer::random(rng, {6, 9}, -1, 1))
      .tensor(Buffer::random(rng, {6, 20}, -1, 1))
      .tensor(Buffer::random(rng, {20, 9}, -1, 1))
      .f(0.5)
      .f(2.0);
  CallBuilder& mm = calls.emplace_back("aten::mm");
  mm.tensor(Buffer::random(rng, {4, 30}, -1, 1)).tensor(Buffer::random(rng, {30, 11}, -1, 1));
  CallBuilder& conv = calls.emplace_back("aten::convolution");
  conv.tensor(Buffer::random(rng, {1, 8, 7, 7}, -1, 1))
      .tensor(Buffer::random(rng, {8, 8, 3, 3}, -0.5, 0.5))
      .tensor(Buffer::random(rng, {8}, -1, 1))
      .ints({1, 1})
      .ints({1, 1})
      .ints({1, 1})
      .b(false)
      .ints({0, 0})
      .i(1);
  CallBuilder& depthwise = calls.emplace_back("aten::conv2d");
  depthwise.tensor(Buffer::random(rng, {1, 6, 9, 9}, -1, 1))
      .tensor(Buffer::random(rng, {6, 1, 3, 3}, -1, 1))
      .none()
      .ints({2, 2})
      .ints({1, 1})
      .ints({1, 1})
      .i(6);
  return calls;
}

TEST(Epilogue, OptimizedMatchesReference) {
  std::mt19937 rng(test_seed());
  for (const CallBuilder& cb : producer_calls(rng)) {
    for (UnaryKind a : kAll) {
      SCOPED_TRACE(cb.op() + " activation " + std::to_string(int(a)));
      RunResult ref = run_kernel(cb, {KernelImpl::kReference, 1, false, 1, a});
      RunResult opt = run_kernel(cb, {KernelImpl::kOptimized, 1, true, 2, a});
      ASSERT_TRUE(ref.status.ok()) << ref.status.message();
      ASSERT_TRUE(opt.status.ok()) << opt.status.message();
      EXPECT_TRUE(all_close(opt.outputs[0], ref.outputs[0], kEpilogueTol, kEpilogueTol));
    }
  }
}

TEST(Epilogue, ReferenceAppliesTheDefinition) {
  std::mt19937 rng(test_seed());
  for (const CallBuilder& cb : producer_calls(rng)) {
    RunResult plain = run_kernel(cb);
    ASSERT_TRUE(plain.status.ok()) << plain.status.message();
    for (UnaryKind a : kAll) {
      SCOPED_TRACE(cb.op() + " activation " + std::to_string(int(a)));
      RunResult fused = run_kernel(cb, {KernelImpl::kReference, 1, false, 1, a});
      ASSERT_TRUE(fused.status.ok()) << fused.status.message();
      Buffer want = Buffer::f32(plain.outputs[0].shape());
      for (int64_t i = 0; i < want.tensor().numel(); ++i)
        want.span<float>()[i] =
            static_cast<float>(torch_activation(a, plain.outputs[0].at<float>(i)));
      EXPECT_TRUE(all_close(fused.outputs[0], want, 1e-6, 1e-6));
    }
  }
}

// torch's relu keeps NaN (and --no-fuse did); the fused linear + relu turned it into 0
// (issue 17). One NaN in the input row makes that output row NaN.
TEST(Epilogue, ReluKeepsNaN) {
  std::mt19937 rng(test_seed());
  Buffer x = Buffer::random(rng, {3, 8}, -1, 1);
  x.span<float>()[8] = std::nanf("");  // row 1
  CallBuilder linear("aten::linear");
  linear.tensor(std::move(x))
      .tensor(Buffer::random(rng, {5, 8}, -1, 1))
      .tensor(Buffer::random(rng, {5}, -1, 1));
  for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
    RunResult r =
        run_kernel(linear, {impl, 1, impl == KernelImpl::kOptimized, 1, UnaryKind::kRelu});
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    for (int64_t j = 0; j < 5; ++j) {
      EXPECT_TRUE(std::isnan(r.outputs[0].at<float>(5 + j)))
          << "impl " << int(impl) << " col " << j;
      EXPECT_GE(r.outputs[0].at<float>(j), 0.f);
    }
  }
}

TEST(Epilogue, EveryProducerKernelAcceptsIt) {
  for (const char* op :
       {"aten::linear", "aten::addmm", "aten::mm", "aten::conv2d", "aten::convolution"})
    for (KernelImpl impl : {KernelImpl::kReference, KernelImpl::kOptimized}) {
      const KernelEntry* e =
          KernelRegistry::global().find_exact(op, DeviceType::kCpu, DType::kFloat32, impl);
      ASSERT_NE(e, nullptr) << op;
      EXPECT_TRUE(e->caps.epilogue) << op;
    }
  const KernelEntry* relu =
      KernelRegistry::global().find("aten::relu", DeviceType::kCpu, DType::kFloat32);
  ASSERT_NE(relu, nullptr);
  EXPECT_FALSE(relu->caps.epilogue);
}

}  // namespace
}  // namespace tir::kernels::testing
