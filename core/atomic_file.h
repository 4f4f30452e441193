// A file written under a temporary name (`<path>.tmp.<pid>`) and renamed into place only
// on commit(); destroying an uncommitted AtomicFile removes the temporary, so a failed
// import leaves nothing behind. Only a regular file (or nothing) is replaced: an existing
// device node, FIFO, socket or directory at the path is refused, a symbolic link to a regular
// file has its target replaced. Every write is checked (a full disk or a file size limit is
// an error naming the path; tools ignore SIGXFSZ so that the limit reaches them as EFBIG).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "core/status.h"

namespace tir {

class AtomicFile {
 public:
  static Result<std::unique_ptr<AtomicFile>> create(const std::string& destination);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }
  /// Appends bytes.
  Status write(std::span<const uint8_t> bytes);
  /// Appends `n` zero bytes.
  Status write_zeros(uint64_t n);
  /// Overwrites bytes at `offset` (inside what was written).
  Status write_at(uint64_t offset, std::span<const uint8_t> bytes);
  /// Flushes to disk (fsync) and closes, keeping the temporary name.
  Status sync();
  /// Renames the synced temporary to `path`. After this the destructor removes nothing.
  Status commit();

 private:
  AtomicFile(std::string path, std::string tmp, int fd)
      : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  Status io_error(const char* what) const;

  std::string path_, tmp_;
  int fd_;
  uint64_t size_ = 0;
  bool committed_ = false;
};

}  // namespace tir
