// Shared by the libFuzzer targets: a per-process scratch folder for readers that take paths.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace tir::fuzz {

/// A folder under $TMPDIR (or /tmp) for this process, created on first use.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t ? t : "/tmp") + "/tir_fuzz_XXXXXX";
    return std::string(::mkdtemp(tmpl.data()));
  }();
  return dir;
}

/// Writes `size` bytes to `name` in the scratch folder and returns its path.
inline std::string write_scratch(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace tir::fuzz
