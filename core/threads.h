// Thread counts as this machine allows them, and work shared out over threads that may not
// all start. A thread count is a request: more compute threads than the CPUs this process may
// run on only adds switching, and a count in the thousands used to end in a failed thread
// start and a crash.
#pragma once

#include <cstddef>
#include <functional>

namespace tir {

/// CPUs this process may run on (its affinity mask), at least 1.
int available_cpus();

/// `requested` compute threads within what the machine allows: <= 0 gives available_cpus();
/// a count above it is capped to it, with one `tir: warning:` line on stderr.
int usable_threads(int requested);

/// Calls task(k) for every k in [0, count) on up to `threads` threads (the calling one
/// included; <= 0: available_cpus()), each taking the next task when free. A thread the
/// process cannot start is no error: the threads running take its tasks.
void parallel_tasks(size_t count, int threads, const std::function<void(size_t)>& task);

}  // namespace tir
