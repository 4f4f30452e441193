// Writer of the tir weight file (format in ir/weight_file.h): a 64-byte header, tensors at
// 64-byte-aligned offsets streamed one at a time (never all in memory), the FlatBuffer
// WeightIndex at the end, and the header patched last. Output goes to a temporary file that
// is renamed by commit(); an abandoned writer removes it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "importer/pt2_archive.h"
#include "ir/weight_file.h"
#include "runtime/core/atomic_file.h"
#include "runtime/core/dtype.h"
#include "runtime/core/status.h"

namespace tir::importer {

struct WeightEntrySpec {
  std::string name;                  // state-dict FQN
  std::vector<std::string> aliases;  // tied names sharing the storage
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
};

struct WrittenWeight {
  uint64_t offset = 0;
  uint64_t byte_size = 0;
  uint64_t xxh3 = 0;
};

/// Feeds a tensor's bytes, in order, into the sink it is given.
using ByteProducer = std::function<Status(const ChunkSink& sink)>;

class WeightWriter {
 public:
  static Result<std::unique_ptr<WeightWriter>> create(const std::string& path);

  /// Appends one tensor of `byte_size` bytes produced by `produce`; the byte count must
  /// match exactly. xxh3 is computed while streaming.
  Status add(const WeightEntrySpec& spec, uint64_t byte_size, const ByteProducer& produce);
  /// Writes the index and header and syncs; returns the signature. The file keeps its
  /// temporary name until commit().
  Result<uint64_t> finish();
  Status commit() { return file_->commit(); }

  const std::vector<WrittenWeight>& written() const { return written_; }
  uint64_t file_size() const { return file_->size(); }

 private:
  explicit WeightWriter(std::unique_ptr<AtomicFile> f) : file_(std::move(f)) {}
  std::unique_ptr<AtomicFile> file_;
  std::vector<WeightEntrySpec> specs_;
  std::vector<WrittenWeight> written_;
};

}  // namespace tir::importer
