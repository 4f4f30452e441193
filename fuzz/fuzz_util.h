// Shared by the libFuzzer targets: a per-process scratch folder for the files an import writes.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace tir::fuzz {

/// A folder under $TMPDIR (else /dev/shm when there is one, else /tmp) for this process,
/// created on first use. Memory-backed by default: the pt2 targets write an import's outputs
/// for every input, and on a disk their fsync and renames cost more than the import.
inline const std::string& scratch_dir() {
  // Never destroyed, so the exit handler that removes the folder can still read it.
  static const std::string* dir = [] {
    const char* t = std::getenv("TMPDIR");
    const char* base = t ? t : ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string tmpl = std::string(base) + "/tir_fuzz_XXXXXX";
    auto* made = new std::string(::mkdtemp(tmpl.data()));
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(*dir, ec);
    });
    return made;
  }();
  return *dir;
}

}  // namespace tir::fuzz
