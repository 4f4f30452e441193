// The C ABI from several threads, as include/tir/tir.h documents it: one handle per thread
// runs concurrently (each its own bindings and outputs), swap_weights on a handle another
// thread is running, and tir_last_error() kept per thread. GPT-2 fixtures of
// tests/data/gen_weights.py: A's program, A's and B's weights, torch's output for each.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "include/tir/tir.h"
#include "runtime/weights/npy.h"
#include "tests/common/test_util.h"

namespace tir {
namespace {

using testing::TempDir;

std::string wfile(const std::string& name) { return testing::fixture_dir() + "/weights/" + name; }

class CApiThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tirc = std::getenv("TIRC");
    ASSERT_NE(tirc, nullptr);
    const std::string cmd = std::string(tirc) + " import " + wfile("A.pt2") + " -o " +
                            tmp_.file("a.tir") + " --weights " + tmp_.file("a.bin") + " >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto ids = npy_read(wfile("input_0.npy"));
    auto a = npy_read(wfile("A_output_0.npy"));
    auto b = npy_read(wfile("B_output_0.npy"));
    ASSERT_TRUE(ids.ok() && a.ok() && b.ok());
    ids_ = std::move(*ids);
    want_a_ = std::move(*a);
    want_b_ = std::move(*b);
  }
  tir_session* open(const std::string& weights) {
    tir_session* s = nullptr;
    EXPECT_EQ(tir_session_open(tmp_.file("a.tir").c_str(), weights.c_str(), nullptr, &s), TIR_OK)
        << tir_last_error();
    const Tensor& x = ids_.view();
    EXPECT_EQ(
        tir_session_bind_input(s, 0, TIR_DTYPE_INT64, x.sizes.data(), x.rank, x.data, x.nbytes()),
        TIR_OK)
        << tir_last_error();
    return s;
  }
  /// Runs `s` once: 'A' or 'B' for whose torch output it matches, '?' for neither, 'E' error.
  char run(tir_session* s) {
    if (tir_session_run(s) != TIR_OK) return 'E';
    tir_tensor_view v;
    if (tir_session_output(s, 0, &v) != TIR_OK) return 'E';
    const Tensor got = make_tensor(static_cast<DType>(v.dtype), {v.dims, size_t(v.rank)},
                                   const_cast<void*>(v.data));
    if (testing::all_close(got, want_a_.view(), 1e-4, 1e-4)) return 'A';
    if (testing::all_close(got, want_b_.view(), 1e-4, 1e-4)) return 'B';
    return '?';
  }

  TempDir tmp_;
  HostTensor ids_, want_a_, want_b_;
};

TEST_F(CApiThreads, OneHandlePerThreadRunsConcurrently) {
  constexpr int kThreads = 4, kRuns = 10;
  std::vector<tir_session*> sessions;
  for (int t = 0; t < kThreads; ++t)
    sessions.push_back(open(t % 2 ? wfile("B.safetensors") : tmp_.file("a.bin")));
  std::vector<std::string> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) seen[t] += run(sessions[t]);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(seen[t], std::string(kRuns, t % 2 ? 'B' : 'A')) << "thread " << t;
    tir_session_free(sessions[t]);
  }
}

TEST_F(CApiThreads, SwapWeightsWhileAnotherThreadRuns) {
  tir_session* s = open(tmp_.file("a.bin"));
  std::atomic<bool> stop{false};
  std::string seen;
  std::thread runner([&] {
    while (!stop.load()) seen += run(s);
  });
  const std::string a = tmp_.file("a.bin"), b = wfile("B.safetensors");
  int swaps = 0;
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(tir_session_swap_weights(s, (i % 2 ? a : b).c_str()), TIR_OK) << tir_last_error();
    ++swaps;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  stop = true;
  runner.join();
  EXPECT_EQ(swaps, 20);
  EXPECT_FALSE(seen.empty());
  // Every run used one whole set: torch's output for A or for B, never a mixture or an error.
  EXPECT_EQ(seen.find_first_not_of("AB"), std::string::npos) << seen;
  // The last swap installed A (i = 19): the next run is A's.
  EXPECT_EQ(run(s), 'A');
  tir_session_free(s);
}

TEST_F(CApiThreads, LastErrorIsPerThread) {
  tir_session* s = nullptr;
  EXPECT_NE(tir_session_open("/nonexistent/m.tir", "/nonexistent/w.bin", nullptr, &s), TIR_OK);
  const std::string mine = tir_last_error();
  EXPECT_NE(mine.find("/nonexistent/"), std::string::npos) << mine;
  std::string theirs = "unset";
  std::thread([&] { theirs = tir_last_error(); }).join();
  EXPECT_EQ(theirs, "");  // a fresh thread has no error
  std::thread([&] {
    tir_session* t = nullptr;
    EXPECT_NE(tir_session_open(nullptr, "w", nullptr, &t), TIR_OK);
  }).join();
  EXPECT_EQ(tir_last_error(), mine);  // another thread's failure leaves ours alone
}

}  // namespace
}  // namespace tir
