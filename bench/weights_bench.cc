// bench_weights: what swapping weights costs in a live session, and the memory of a session
// whose model has several methods. Prints one JSON object; bench/weights_bench.py runs it.
//
//   bench_weights MODEL.tir --weights BASE.bin [--swap NEW.bin] [--delta PART.safetensors]
//                 [--input METHOD=FILE.npy ...] [--reps N]
//
// full_swap_ms      open NEW (mmap, no checksum pass) + Session::swap_weights, median
// full_swap_verify_ms  the same with every tensor's xxh3 verified at open
// partial_swap_ms   open PART + overlay on the current set + swap_weights, median
// partial_swap_verify_ms  the same with PART's checksums verified (a tir file; safetensors
//                   has none, so there it equals partial_swap_ms)
// run_ms / first_run_after_*_ms  a steady run, and the first run after a swap (which
//                   re-points the plan and re-prepares the nodes whose weights changed)
// Every method named by --input gets a session (all over the one weight set) and runs once;
// peak_rss_mb is the process's peak resident set after that.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "runtime/exec/session.h"
#include "runtime/weights/npy.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
/// VmHWM of this process (ru_maxrss would include the parent's peak: it survives exec).
double peak_rss_kb() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6));
  return 0;
}
int fail(const std::string& what) {
  std::fprintf(stderr, "error: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"bench_weights: weight swap cost and multi-method memory"};
  std::string model_path, base_path, swap_path, delta_path;
  std::vector<std::string> inputs;
  int reps = 20, threads = 0;
  app.add_option("model", model_path, "model (.tir)")->required();
  app.add_option("--weights", base_path, "base weight file")->required();
  app.add_option("--swap", swap_path, "a second full weight set for the same model");
  app.add_option("--delta", delta_path, "a partial set (overlay) for the same model");
  app.add_option("--input", inputs, "METHOD=FILE.npy, the input of a method to run")->required();
  app.add_option("--reps", reps, "repetitions of each swap");
  app.add_option("--threads", threads, "kernel threads");
  CLI11_PARSE(app, argc, argv);
  tir::set_num_threads(threads);

  auto model = tir::data_source_mmap(model_path);
  if (!model.ok()) return fail(model.status().message());
  tir::WeightSetOptions no_verify;
  no_verify.verify_checksums = false;
  auto base = tir::WeightSet::open(base_path, no_verify);
  if (!base.ok()) return fail(base.status().message());

  std::map<std::string, std::unique_ptr<tir::Session>> sessions;
  std::map<std::string, tir::HostTensor> method_inputs;
  for (const std::string& spec : inputs) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) return fail("--input wants METHOD=FILE.npy, got '" + spec + "'");
    const std::string method = spec.substr(0, eq);
    auto t = tir::npy_read(spec.substr(eq + 1));
    if (!t.ok()) return fail(t.status().message());
    tir::SessionOptions o;
    o.method = method;
    auto s = tir::Session::create(*model, *base, o);
    if (!s.ok()) return fail(s.status().message());
    auto r = (*s)->run({&t->view(), 1});
    if (!r.ok()) return fail(r.status().message());
    method_inputs[method] = std::move(*t);
    sessions[method] = std::move(*s);
  }
  const double peak_rss_mb = peak_rss_kb() / 1024.0;

  // Swaps are timed on the first method named by --input.
  const std::string first = inputs[0].substr(0, inputs[0].find('='));
  tir::Session& s = *sessions.at(first);
  const tir::Tensor in = method_inputs.at(first).view();
  auto timed_run = [&] {
    const auto t0 = Clock::now();
    auto r = s.run({&in, 1});
    if (!r.ok()) std::exit(fail(r.status().message()));
    return ms_since(t0);
  };
  std::vector<double> run_ms;
  for (int i = 0; i < 3; ++i) run_ms.push_back(timed_run());

  std::vector<double> open_only, full, full_verify, partial, partial_verify, first_full,
      first_partial;
  for (int i = 0; i < reps && !swap_path.empty(); ++i) {
    const bool verify = i % 2 == 1;
    tir::WeightSetOptions wo;
    wo.verify_checksums = verify;
    const auto t0 = Clock::now();
    auto next = tir::WeightSet::open(i % 4 < 2 ? swap_path : base_path, wo);
    if (!next.ok()) return fail(next.status().message());
    if (!verify) open_only.push_back(ms_since(t0));
    if (auto st = s.swap_weights(*next); !st.ok()) return fail(st.message());
    (verify ? full_verify : full).push_back(ms_since(t0));
    first_full.push_back(timed_run());
  }
  for (int i = 0; i < reps && !delta_path.empty(); ++i) {
    const bool verify = i % 2 == 1;  // a tir delta has checksums; safetensors has none
    tir::WeightSetOptions wo;
    wo.verify_checksums = verify;
    const auto t0 = Clock::now();
    auto delta = tir::WeightSet::open(delta_path, wo);
    if (!delta.ok()) return fail(delta.status().message());
    std::shared_ptr<const tir::WeightSet> layers[] = {*delta};
    auto over = tir::WeightSet::overlay(*base, layers);
    if (!over.ok()) return fail(over.status().message());
    if (auto st = s.swap_weights(*over); !st.ok()) return fail(st.message());
    (verify ? partial_verify : partial).push_back(ms_since(t0));
    first_partial.push_back(timed_run());
    if (auto st = s.swap_weights(*base); !st.ok()) return fail(st.message());
    timed_run();
  }
  std::printf(
      "{\"method\": \"%s\", \"methods\": %zu, \"weight_bytes\": %zu, \"peak_rss_mb\": %.1f, "
      "\"run_ms\": %.3f, "
      "\"open_ms\": %.4f, \"full_swap_ms\": %.4f, \"full_swap_verify_ms\": %.3f, "
      "\"first_run_after_full_swap_ms\": "
      "%.3f, \"partial_swap_ms\": %.4f, \"partial_swap_verify_ms\": %.3f, "
      "\"first_run_after_partial_swap_ms\": %.3f}\n",
      first.c_str(), sessions.size(), (*base)->total_bytes(), peak_rss_mb, median(run_ms),
      median(open_only), median(full), median(full_verify), median(first_full), median(partial),
      median(partial_verify), median(first_partial));
  return 0;
}
