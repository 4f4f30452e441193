// LoRA adapters and threads: four threads running one session with four different adapters at
// once each get their own adapter's result, run after run; adapters loaded and unloaded while
// other threads run leave those runs untouched. Part of the TSan stage (tools/setup.sh tsan).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/runtime/lora_fixture.h"

namespace tir {
namespace {

using testing::kLoraTol;
using testing::LoraFamily;

constexpr int kRuns = 20;

/// One run on the calling (main) thread first: oneDNN creates its global primitive cache
/// lazily, in code ThreadSanitizer does not see, so the threads start after that (as in
/// swap_weights_test.cc, whose sessions have run before its threads start).
void warm_up(Session& s, const LoraFamily& f) {
  const std::vector<Tensor> in = {f.input.view()};
  ASSERT_TRUE(s.run(in).ok());
}

/// Runs `name` kRuns times on `s`, counting runs whose output is not `expected`.
void run_adapter(Session* s, const LoraFamily& f, const std::string& name, const Tensor& expected,
                 std::atomic<int>* wrong) {
  const std::vector<Tensor> in = {f.input.view()};
  for (int k = 0; k < kRuns; ++k) {
    auto out = s->run(in, name);
    if (!out.ok() || !testing::all_close((*out)[0], expected, kLoraTol, kLoraTol)) ++*wrong;
  }
}

TEST(LoraThreads, FourThreadsFourAdapters) {
  const nlohmann::json manifest = testing::lora_manifest();
  for (const auto& entry : manifest["families"]) {
    LoraFamily f;
    testing::load_lora_family(entry, &f);
    ASSERT_GE(f.adapters.size(), 4u);
    auto s = testing::open_with_adapters(f);
    ASSERT_NE(s, nullptr);
    warm_up(*s, f);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < 4; ++t)
      threads.emplace_back(run_adapter, s.get(), std::cref(f), f.adapters[t].name,
                           f.adapters[t].expected.view(), &wrong);
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0) << f.name << ": runs that did not give their adapter's result";
  }
}

TEST(LoraThreads, LoadAndUnloadWhileRunsGoOn) {
  const nlohmann::json manifest = testing::lora_manifest();
  LoraFamily f;
  testing::load_lora_family(manifest["families"][1], &f);  // Llama: one adapter has modules_to_save
  auto s = testing::open_with_adapters(f);
  ASSERT_NE(s, nullptr);
  ASSERT_TRUE(s->unload_adapter(f.adapters[0].name).ok());
  warm_up(*s, f);
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0}, cycles{0}, flickering_ok{0};
  std::thread admin([&] {  // adapter 0 comes and goes; adapter 2 is loaded again and again
    while (!stop) {
      if (!s->load_adapter(f.adapters[0].name, f.adapters[0].dir).ok()) ++wrong;
      if (!s->load_adapter(f.adapters[2].name, f.adapters[2].dir).ok()) ++wrong;
      if (!s->unload_adapter(f.adapters[0].name).ok()) ++wrong;
      ++cycles;
    }
  });
  // The runs start once the admin has loaded and unloaded once (it goes on while they run): on
  // a loaded machine they could otherwise all finish before its first cycle.
  while (cycles.load() == 0 && wrong.load() == 0) std::this_thread::yield();
  std::vector<std::thread> runners;
  for (size_t t = 1; t < 4; ++t)
    runners.emplace_back(run_adapter, s.get(), std::cref(f), f.adapters[t].name,
                         f.adapters[t].expected.view(), &wrong);
  runners.emplace_back([&] {  // adapter 0: its result when loaded, "no adapter" otherwise
    const std::vector<Tensor> in = {f.input.view()};
    for (int k = 0; k < kRuns; ++k) {
      auto out = s->run(in, f.adapters[0].name);
      if (!out.ok()) {
        if (out.status().code() != StatusCode::kNotFound) ++wrong;
        continue;
      }
      ++flickering_ok;
      if (!testing::all_close((*out)[0], f.adapters[0].expected.view(), kLoraTol, kLoraTol))
        ++wrong;
    }
  });
  for (std::thread& t : runners) t.join();
  stop = true;
  admin.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(cycles.load(), 0);
}

}  // namespace
}  // namespace tir
