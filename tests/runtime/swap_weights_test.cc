// Session::swap_weights: after a swap a session computes exactly what a fresh session over the
// new weights computes (bitwise); a set that does not fit is refused and the old one stays;
// runs on several threads while another thread swaps always see one whole set, never a mix.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "ir/model.h"
#include "ir/weight_file.h"
#include "runtime/exec/session.h"
#include "tests/runtime/fixture_session.h"

namespace tir {
namespace {

using testing::bitwise_equal;
using testing::copies;
using testing::scaled_weights;
using testing::TempDir;

struct Fixture {
  TempDir tmp;
  std::string dir;
  std::shared_ptr<const DataSource> model;
  std::shared_ptr<const WeightSet> a, b;
  std::vector<HostTensor> inputs, out_a, out_b;  // out_x: a fresh session's output on x
};

void load(const std::string& rel, Fixture* f) {
  f->dir = testing::fixture_dir() + "/" + rel;
  ASSERT_TRUE(testing::import_fixture(f->dir, f->tmp));
  auto model = data_source_mmap(f->tmp.file("m.tir"));
  auto a = WeightSet::open(f->tmp.file("m.bin"));
  ASSERT_TRUE(model.ok() && a.ok());
  f->model = *model;
  f->a = *a;
  f->b = scaled_weights(f->tmp.file("m.bin"), 0.5f);
  ASSERT_NE(f->b, nullptr);
  const nlohmann::json m = testing::manifest();
  for (const auto& e : m["fixtures"])
    if (testing::fixture_dir() + "/" + e["dir"].get<std::string>() == f->dir)
      f->inputs = testing::read_all(f->dir, e["inputs"]);
  ASSERT_FALSE(f->inputs.empty());
  for (auto [set, out] : {std::pair{f->a, &f->out_a}, std::pair{f->b, &f->out_b}}) {
    auto fresh = Session::create(f->model, set);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    auto r = (*fresh)->run(testing::views(f->inputs));
    ASSERT_TRUE(r.ok()) << r.status().message();
    *out = copies(*r);
  }
  ASSERT_FALSE(bitwise_equal(testing::views(f->out_a), f->out_b)) << "the two sets must differ";
}

class SwapWeights : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { set_num_threads(1); }  // bitwise comparisons across threads
};

TEST_P(SwapWeights, SwapEqualsAFreshSessionBitwise) {
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(load(GetParam(), &f));
  auto s = Session::create(f.model, f.a);
  ASSERT_TRUE(s.ok()) << s.status().message();
  const auto in = testing::views(f.inputs);
  for (int round = 0; round < 2; ++round) {  // A, B, A, B: cached plans are re-pointed
    auto ra = (*s)->run(in);
    ASSERT_TRUE(ra.ok()) << ra.status().message();
    EXPECT_TRUE(bitwise_equal(*ra, f.out_a)) << "round " << round;
    ASSERT_TRUE((*s)->swap_weights(f.b).ok());
    auto rb = (*s)->run(in);
    ASSERT_TRUE(rb.ok()) << rb.status().message();
    EXPECT_TRUE(bitwise_equal(*rb, f.out_b)) << "round " << round;
    ASSERT_TRUE((*s)->swap_weights(f.a).ok());
  }
  EXPECT_EQ((*s)->weights_generation(), 4u);
  EXPECT_EQ((*s)->num_cached_plans(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Models, SwapWeights,
                         ::testing::Values("mlp/core", "resnet_small/core", "gpt2/core"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(SwapWeightsErrors, SetOfAnotherModelIsRefusedAndTheOldOneStays) {
  set_num_threads(1);
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(load("resnet_small/core", &f));
  TempDir other;
  ASSERT_TRUE(testing::import_fixture(testing::fixture_dir() + "/mlp/core", other));
  auto mlp = WeightSet::open(other.file("m.bin"));
  ASSERT_TRUE(mlp.ok());
  auto s = Session::create(f.model, f.a);
  ASSERT_TRUE(s.ok());
  const Status st = (*s)->swap_weights(*mlp);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("does not match the model"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(other.file("m.bin")), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("has no tensor '"), std::string::npos) << st.message();
  EXPECT_EQ((*s)->weights_generation(), 0u);
  EXPECT_EQ((*s)->swap_weights(nullptr).ok(), false);
  auto r = (*s)->run(testing::views(f.inputs));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(bitwise_equal(*r, f.out_a));
}

// Several threads run one session while another swaps A <-> B many times. Each result must
// equal, bit for bit, the output of A or of B. The swapper waits for runs in between, so
// both sets are seen; counts and time are bounded.
TEST(SwapWeightsStress, RunsOnManyThreadsNeverSeeAMix) {
  set_num_threads(1);
  Fixture f;
  ASSERT_NO_FATAL_FAILURE(load("resnet_small/core", &f));
  auto s = Session::create(f.model, f.a);
  ASSERT_TRUE(s.ok());
  Session& session = **s;
  constexpr int kRunners = 3, kSwaps = 40;
  std::atomic<bool> stop{false};
  std::atomic<int> runs{0}, seen_a{0}, seen_b{0}, mixed{0}, failed{0};
  std::vector<std::thread> runners;
  for (int t = 0; t < kRunners; ++t) {
    runners.emplace_back([&] {
      set_num_threads(1);
      const auto in = testing::views(f.inputs);
      while (!stop.load()) {
        auto r = session.run(in);
        if (!r.ok()) {
          ++failed;
          break;
        }
        if (bitwise_equal(*r, f.out_a))
          ++seen_a;
        else if (bitwise_equal(*r, f.out_b))
          ++seen_b;
        else
          ++mixed;
        ++runs;
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int i = 0; i < kSwaps && std::chrono::steady_clock::now() < deadline; ++i) {
    if (!session.swap_weights(i % 2 == 0 ? f.b : f.a).ok()) {
      ADD_FAILURE() << "swap " << i << " failed";
      break;  // the runners must still be joined
    }
    const int target = runs.load() + kRunners;  // let every runner finish about one run
    while (runs.load() < target && failed.load() == 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  }
  stop = true;
  for (auto& t : runners) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(mixed.load(), 0) << "a run saw parts of both weight sets";
  EXPECT_GT(seen_a.load(), 0);
  EXPECT_GT(seen_b.load(), 0);
  EXPECT_EQ(session.weights_generation(), uint64_t(kSwaps));
}

TEST(PackedWeights, SessionsOnOneSetShareOnePackedCopy) {
  // GEMM kernels pack their weights from the second run (kernels/cpu/onednn/gemm_onednn.cc) into
  // the weight set's cache: a second session on the same set finds them there, adds none,
  // and computes the same; a session on another set packs its own. (BERT: its GEMMs have
  // 2 x 8 = 16 rows, enough to pack; a decode step's one row never packs. Packed into any
  // layout oneDNN prefers: on AVX2 it prefers no blocked one.)
  const auto pack = testing::pack_every_gemm_weight();
  Fixture f;
  load("bert/training", &f);
  std::vector<HostTensor> first;
  for (int s = 0; s < 2; ++s) {
    auto session = Session::create(f.model, f.a);
    ASSERT_TRUE(session.ok()) << session.status().message();
    for (int r = 0; r < 3; ++r) {
      auto out = (*session)->run(testing::views(f.inputs));
      ASSERT_TRUE(out.ok()) << out.status().message();
      if (s == 0 && r == 2) first = copies(*out);
      if (s == 1 && r == 2) EXPECT_TRUE(bitwise_equal(*out, first));
    }
    if (s == 0) EXPECT_GT(f.a->packed_cache().size(), 0u);
  }
  const size_t packed = f.a->packed_cache().size();
  auto again = Session::create(f.model, f.a);
  ASSERT_TRUE(again.ok());
  for (int r = 0; r < 3; ++r) ASSERT_TRUE((*again)->run(testing::views(f.inputs)).ok());
  EXPECT_EQ(f.a->packed_cache().size(), packed);
  EXPECT_EQ(f.b->packed_cache().size(), 0u);
  auto other = Session::create(f.model, f.b);
  ASSERT_TRUE(other.ok());
  for (int r = 0; r < 3; ++r) {
    auto out = (*other)->run(testing::views(f.inputs));
    ASSERT_TRUE(out.ok());
    if (r == 2) EXPECT_FALSE(bitwise_equal(*out, first));
  }
  EXPECT_EQ(f.b->packed_cache().size(), packed);
}

}  // namespace
}  // namespace tir
