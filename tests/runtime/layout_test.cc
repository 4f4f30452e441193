// Channels-last activations between convolutions (runtime/passes/layout.h): on the real torch CNN
// fixtures some values are chosen (so the layout is in use), the outputs still match torch,
// and they match a run with every activation plain (SessionOptions::fuse off). A value read
// by any kernel argument that cannot take channels-last (max pooling, add, flatten, a method
// output) must stay plain, or the comparison with torch fails. In MobileNetV3 the
// squeeze-excitation blocks' pools and scales read channels-last, so the chain of
// convolutions stays channels-last from the first to the classifier's pool.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/exec/executor.h"
#include "runtime/weights/weight_source.h"
#include "tests/runtime/exec_fixture.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::read_all;
using testing::TempDir;
using testing::views;

struct LayoutRun {
  size_t channels_last = 0;
  std::vector<HostTensor> outputs;
};

LayoutRun run(const std::string& dir, const nlohmann::json& f, bool fuse) {
  LayoutRun r;
  TempDir tmp;
  SessionOptions o;
  o.fuse = fuse;
  testing::FixtureRun run = testing::run_fixture_once(dir, f, tmp, o);
  if (!run.session) return r;
  r.outputs = std::move(run.outputs);
  r.channels_last = run.session->num_channels_last();
  // A second run reads the same plan (input pointers rebound, layouts kept). From the second
  // run on, linear weights are packed (kernels/cpu/onednn/gemm_onednn.cc); on AVX2 without AVX-512
  // oneDNN's packed kernel sums in another order, so the last bits may differ there. A stale
  // pointer or layout would differ far more than float rounding.
  auto again = run.session->run(views(run.inputs));
  EXPECT_TRUE(again.ok()) << dir << ": " << again.status().message();
  if (!again.ok()) return r;
  EXPECT_EQ(again->size(), r.outputs.size()) << dir;
  for (size_t k = 0; k < std::min(again->size(), r.outputs.size()); ++k)
    EXPECT_TRUE(testing::all_close((*again)[k], r.outputs[k].view(), 1e-5, 1e-6))
        << dir << " output " << k;
  return r;
}

class ChannelsLast : public ::testing::TestWithParam<std::string> {};

TEST_P(ChannelsLast, ChosenBetweenConvsAndMatchesTorch) {
  nlohmann::json fixture;
  const nlohmann::json manifest = testing::manifest();
  for (const auto& f : manifest["fixtures"])
    if (f["dir"] == GetParam()) fixture = f;
  ASSERT_FALSE(fixture.is_null()) << GetParam();
  const std::string dir = testing::fixture_dir() + "/" + GetParam();
  const LayoutRun cl = run(dir, fixture, true);
  const LayoutRun plain = run(dir, fixture, false);
  EXPECT_GT(cl.channels_last, 0u);
  EXPECT_EQ(plain.channels_last, 0u);
  const auto want = read_all(dir, fixture["outputs"]);
  ASSERT_EQ(cl.outputs.size(), want.size());
  ASSERT_EQ(plain.outputs.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_TRUE(testing::all_close(cl.outputs[k].view(), want[k].view(), 1e-4, 1e-4))
        << "output " << k;
    EXPECT_TRUE(testing::all_close(cl.outputs[k].view(), plain.outputs[k].view(), 1e-5, 1e-5))
        << "output " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Cnn, ChannelsLast,
                         ::testing::Values("resnet_small/training", "resnet_small/core",
                                           "mobilenet_v3_small/training",
                                           "mobilenet_v3_small/core"),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

// MobileNetV3's squeeze-excitation blocks read the block's activation with a global pool
// (adaptive_avg_pool2d; mean.dim over H, W in the core IR) and with mul.Tensor(scale, x), x as
// argument 1: both accept it channels-last (asked per argument), so the activation, the
// pooled value, the scale and the product all stay channels-last, and every convolution but
// the first (which reads the method input) reads channels-last: no reorders between them.
// The classifier's pool reads channels-last too and writes plain (flatten reads it).
class SqueezeExcitation : public ::testing::TestWithParam<std::string> {};

TEST_P(SqueezeExcitation, StaysChannelsLast) {
  testing::LoadedModel m;
  ASSERT_NO_FATAL_FAILURE(testing::load_model(GetParam(), &m));
  auto weights = ResidentWeights::bind(*m.view, m.weights);
  ASSERT_TRUE(weights.ok()) << weights.status().message();
  auto ex = MethodExecutor::create(*m.view, *m.forward, *weights, {});
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  const ExecGraph& g = (*ex)->graph();
  const auto is_input = [&](int32_t v) {
    return std::find(g.inputs.begin(), g.inputs.end(), v) != g.inputs.end();
  };
  size_t muls = 0, pools = 0, plain_pools = 0, convs = 0;
  for (const ExecNode& n : g.nodes) {
    if (n.op == "aten::mul.Tensor") {
      ++muls;
      for (int32_t v : n.inputs) EXPECT_TRUE(g.values[v].channels_last) << n.name;
      EXPECT_TRUE(g.values[n.outputs[0]].channels_last) << n.name;
    }
    if (n.op == "aten::adaptive_avg_pool2d" || n.op == "aten::mean.dim") {
      ++pools;
      EXPECT_TRUE(g.values[n.inputs[0]].channels_last) << n.name;
      plain_pools += !g.values[n.outputs[0]].channels_last;
    }
    if (n.op == "aten::conv2d" || n.op == "aten::convolution") {
      ++convs;
      const int32_t x = n.inputs[n.args[0].i];
      EXPECT_TRUE(g.values[x].channels_last || is_input(x)) << n.name;
    }
  }
  EXPECT_GT(muls, 0u);
  EXPECT_EQ(pools, muls + 1);  // one per block, and the classifier's
  EXPECT_EQ(plain_pools, 1u);
  EXPECT_GT(g.num_channels_last, convs);  // every conv's output, and each block's pool
}

INSTANTIATE_TEST_SUITE_P(Cnn, SqueezeExcitation,
                         ::testing::Values("mobilenet_v3_small/training",
                                           "mobilenet_v3_small/core"),
                         [](const auto& info) { return testing::fixture_test_name(info.param); });

}  // namespace
}  // namespace tir
