#include "core/threads.h"

#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <system_error>
#include <thread>
#include <vector>

namespace tir {

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

int usable_threads(int requested) {
  const int cpus = available_cpus();
  if (requested <= 0) return cpus;
  if (requested <= cpus) return requested;
  static std::atomic<int> warned{0};  // the last count warned about: one line per count
  if (warned.exchange(requested) != requested)
    std::fprintf(stderr,
                 "tir: warning: %d threads asked for; this process may run on %d CPUs, "
                 "using %d\n",
                 requested, cpus, cpus);
  return cpus;
}

void parallel_tasks(size_t count, int threads, const std::function<void(size_t)>& task) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1, std::memory_order_relaxed)) < count;) task(k);
  };
  const size_t workers = std::min(count, size_t(usable_threads(threads)));
  std::vector<std::thread> pool;
  for (size_t i = 1; i < workers; ++i) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running (and this one) do the rest
    }
  }
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace tir
