// Programs torch cannot pin down value by value (tests/data/gen_random.py): rand, randn,
// randperm, rand_like and randn_like exported from torch and run through a Session, checked by
// shape (torch's), distribution and reproducibility per SessionOptions::seed; and a view read
// after an in-place write through a slice of what it views, which matches torch in both IRs
// (the training IR's view is taken again from the written tensor).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>

#include "runtime/exec/session.h"
#include "tests/common/moments.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::TempDir;

std::string random_fixture_dir(const std::string& model, const std::string& dialect) {
  return testing::fixture_dir() + "/random/" + model + "/" + dialect;
}

std::vector<HostTensor> run_random_ops(const std::string& dir, std::optional<uint64_t> seed,
                                       int runs = 1) {
  TempDir tmp;
  SessionOptions o;
  o.seed = seed;
  auto session = testing::open_fixture(dir, tmp, o);
  EXPECT_TRUE(session.ok()) << session.status().message();
  if (!session.ok()) return {};
  auto x = npy_read(dir + "/input_0.npy");
  EXPECT_TRUE(x.ok());
  std::vector<HostTensor> last;
  for (int r = 0; r < runs; ++r) {
    auto out = (*session)->run(std::vector<Tensor>{x->view()});
    EXPECT_TRUE(out.ok()) << out.status().message();
    if (!out.ok()) return {};
    last = testing::copies(*out);
  }
  return last;
}

std::vector<double> floats(const HostTensor& t) {
  const Tensor v = t.view();
  const float* p = static_cast<const float*>(v.data);
  return std::vector<double>(p, p + v.numel());
}

using ::tir::testing::expect_moments;

class RandomProgram : public ::testing::TestWithParam<std::string> {};

TEST_P(RandomProgram, ShapesDistributionsAndSeeds) {
  const std::string dir = random_fixture_dir("random_ops", GetParam());
  const std::vector<HostTensor> a = run_random_ops(dir, 5);
  ASSERT_EQ(a.size(), 5u);
  std::ifstream f(dir + "/shapes.json");
  const nlohmann::json shapes = nlohmann::json::parse(f)["outputs"];
  for (size_t k = 0; k < a.size(); ++k) {
    const Tensor t = a[k].view();
    EXPECT_EQ(std::vector<int64_t>(t.shape().begin(), t.shape().end()),
              shapes[k]["shape"].get<std::vector<int64_t>>())
        << "output " << k;
    EXPECT_EQ(t.dtype, shapes[k]["dtype"] == "int64" ? DType::kInt64 : DType::kFloat32);
  }
  const std::vector<double> u = floats(a[0]), z = floats(a[1]);
  EXPECT_TRUE(std::all_of(u.begin(), u.end(), [](double x) { return x >= 0 && x < 1; }));
  expect_moments(u, 0.5, 1.0 / 12);
  expect_moments(z, 0.0, 1.0);
  const int64_t* p = static_cast<const int64_t*>(a[2].view().data);
  std::vector<int64_t> perm(p, p + a[2].view().numel());
  std::sort(perm.begin(), perm.end());
  for (size_t i = 0; i < perm.size(); ++i) EXPECT_EQ(perm[i], int64_t(i));
  const std::vector<double> ul = floats(a[3]);
  EXPECT_TRUE(std::all_of(ul.begin(), ul.end(), [](double x) { return x >= 0 && x < 1; }));

  // The same seed draws the same values in a new session; another seed, or the next run of
  // the same session, others.
  const std::vector<HostTensor> b = run_random_ops(dir, 5), c = run_random_ops(dir, 6);
  const std::vector<HostTensor> a2 = run_random_ops(dir, 5, 2);
  ASSERT_EQ(b.size(), 5u);
  ASSERT_EQ(c.size(), 5u);
  ASSERT_EQ(a2.size(), 5u);
  auto same = [](const HostTensor& x, const HostTensor& y) {
    const Tensor a = x.view(), b = y.view();
    return a.nbytes() == b.nbytes() && std::memcmp(a.data, b.data, a.nbytes()) == 0;
  };
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_TRUE(same(a[k], b[k])) << "output " << k;
    EXPECT_FALSE(same(a[k], c[k])) << "output " << k;
    EXPECT_FALSE(same(a[k], a2[k])) << "output " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Dialects, RandomProgram, ::testing::Values("training", "core"));

// A view read after an in-place write to what it views: the training IR's view is taken
// again from the written tensor (importer/view_tracking.cc), the core IR is functional.
class StaleView : public ::testing::TestWithParam<const char*> {};

TEST_P(StaleView, MatchesTorch) {
  const std::string dir = random_fixture_dir("stale_view", GetParam());
  TempDir tmp;
  auto session = testing::open_fixture(dir, tmp);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto x = npy_read(dir + "/input_0.npy");
  ASSERT_TRUE(x.ok());
  auto out = (*session)->run(std::vector<Tensor>{x->view()});
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (size_t k = 0; k < 2; ++k) {
    auto want = npy_read(dir + "/output_" + std::to_string(k) + ".npy");
    ASSERT_TRUE(want.ok());
    EXPECT_TRUE(testing::all_close((*out)[k], want->view(), 0, 0)) << "output " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Dialects, StaleView, ::testing::Values("training", "core"));

}  // namespace
}  // namespace tir
