// Channels-last activations between convolutions (runtime/layout.h): on the real torch CNN
// fixtures some values are chosen (so the layout is in use), the outputs still match torch,
// and they match a run with every activation plain (SessionOptions::fuse off). A value read
// by any kernel that cannot take channels-last (pooling, mul, add, a method output) must stay
// plain, or the comparison with torch fails.
#include <gtest/gtest.h>

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
  // A second run reads the same plan (input pointers rebound, layouts kept).
  auto again = run.session->run(views(run.inputs));
  EXPECT_TRUE(again.ok() && testing::bitwise_equal(*again, r.outputs)) << dir;
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
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (c == '/') c = '_';
                           return s;
                         });

}  // namespace
}  // namespace tir
