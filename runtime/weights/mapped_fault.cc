#include "runtime/weights/mapped_fault.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "core/printable.h"

namespace tir {
namespace {

// Read by the signal handler without locks: `begin` is published last (release) and cleared
// first, so a slot being reused at the moment of a fault at worst names the wrong file.
struct MappedFile {
  std::atomic<uintptr_t> begin{0};
  std::atomic<size_t> size{0};
  std::atomic<int> fd{-1};
  char path[1024] = {};  // printable(path), cut to fit
};
constexpr int kSlots = 256;
MappedFile g_files[kSlots];
std::mutex g_mu;  // serialises register/unregister (never taken by the handler)

void put(int fd, const char* s) {
  for (size_t n = std::strlen(s); n > 0;) {
    const ssize_t k = ::write(fd, s, n);
    if (k <= 0) return;
    s += k, n -= static_cast<size_t>(k);
  }
}

void put_number(int fd, uint64_t v) {
  char buf[24];
  char* p = buf + sizeof buf;
  *--p = '\0';
  do *--p = static_cast<char>('0' + v % 10);
  while (v /= 10);
  put(fd, p);
}

void on_sigbus(int sig, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (MappedFile& f : g_files) {
    const uintptr_t begin = f.begin.load(std::memory_order_acquire);
    const size_t size = f.size.load(std::memory_order_relaxed);
    if (begin == 0 || addr < begin || addr - begin >= size) continue;
    struct stat st;
    const int fd = f.fd.load(std::memory_order_relaxed);
    const bool known = fd >= 0 && ::fstat(fd, &st) == 0;
    put(2, "error: file '");
    put(2, f.path);
    put(2, "': byte ");
    put_number(2, addr - begin);
    put(2, " cannot be read: the file was truncated while in use (now ");
    if (known) {
      put_number(2, static_cast<uint64_t>(st.st_size));
      put(2, " bytes, ");
    } else {
      put(2, "? bytes, ");
    }
    put_number(2, size);
    put(2, " mapped)\n");
    ::_exit(1);
  }
  // Not ours: the default action (death by SIGBUS), delivered when the handler returns.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void report_truncated_mapped_files() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa = {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, nullptr);
  });
}

int register_mapped_file(const void* addr, size_t size, int fd, std::string_view path) {
  if (!addr || size == 0) return -1;
  std::lock_guard lock(g_mu);
  for (int i = 0; i < kSlots; ++i) {
    MappedFile& f = g_files[i];
    if (f.begin.load(std::memory_order_relaxed) != 0) continue;
    const std::string shown = printable(path);
    const size_t n = std::min(shown.size(), sizeof f.path - 1);
    std::memcpy(f.path, shown.data(), n);
    f.path[n] = '\0';
    f.size.store(size, std::memory_order_relaxed);
    f.fd.store(fd, std::memory_order_relaxed);
    f.begin.store(reinterpret_cast<uintptr_t>(addr), std::memory_order_release);
    return i;
  }
  return -1;
}

void unregister_mapped_file(int slot) {
  if (slot < 0 || slot >= kSlots) return;
  std::lock_guard lock(g_mu);
  g_files[slot].begin.store(0, std::memory_order_release);
}

}  // namespace tir
