// Where bytes come from: a read-only memory-mapped file, or a buffer in memory (tests,
// embedders). A DataSource owns its mapping or buffer and frees it when the last
// shared_ptr goes; tensors handed out by the runtime borrow from it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status.h"

namespace tir {

class DataSource {
 public:
  virtual ~DataSource() = default;
  /// All bytes. Valid and unchanged for the lifetime of the DataSource.
  virtual std::span<const uint8_t> bytes() const = 0;
  /// The file path or a label, for messages.
  virtual const std::string& name() const = 0;
  /// Hint that bytes [offset, offset + size) are about to be read in full: a mapping maps
  /// them now in one go (cheaper than a page fault per few pages). Bytes in memory: no-op.
  virtual void prefetch(size_t /*offset*/, size_t /*size*/) const {}
  /// Hint that bytes [offset, offset + size) will not be read for a while: a mapping lets
  /// the whole pages inside them go from this process's resident memory (MADV_DONTNEED; a
  /// later read maps them from the file again, so the bytes never change). Bytes in memory:
  /// no-op.
  virtual void drop_pages(size_t /*offset*/, size_t /*size*/) const {}
  /// Bytes the underlying file holds now. A mapped file truncated by someone else while it
  /// is mapped is smaller than bytes(), and reading past its new end raises SIGBUS, so
  /// readers check this first (one fstat). Bytes in memory: bytes().size().
  virtual uint64_t current_size() const { return bytes().size(); }
};

/// Maps `path` read-only (MAP_PRIVATE). An empty file maps to an empty span.
Result<std::shared_ptr<const DataSource>> data_source_mmap(const std::string& path);

/// Takes ownership of `bytes`; the data starts 64-byte aligned.
std::shared_ptr<const DataSource> data_source_from_buffer(std::vector<uint8_t> bytes,
                                                          std::string name);

/// Reads a whole file into memory (for small files, or where mmap is not wanted).
Result<std::vector<uint8_t>> read_file(const std::string& path);

/// Writes `bytes` to `path` atomically: a temp file beside it, fsync, then rename.
/// On failure nothing is left at `path` (nor the temp file).
Status write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace tir
