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

#include "core/atomic_file.h"
#include "core/dtype.h"
#include "core/status.h"
#include "importer/pt2_archive.h"
#include "ir/weight_file.h"

namespace tir::importer {

struct WeightEntrySpec {
  std::string name;                  // state-dict FQN
  std::vector<std::string> aliases;  // tied names sharing the storage
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
  /// Element type of the bytes the producer feeds when narrower than `dtype` (a float32
  /// tensor stored as float16/bfloat16, see ir/weight_file.h); kUndefined: same as `dtype`.
  DType stored_dtype = DType::kUndefined;
  /// With stored_dtype kInt8: the channel axis of the per-channel scales (core/quantize.h).
  int8_t quant_axis = -1;
  /// With quant_axis: the bytes end with 1/s per input channel (SmoothQuant, core/quantize.h).
  bool smoothed = false;
  /// > 0: stored int4 in groups of this many values (core/quantize_int4.h), quant_axis 0;
  /// quant_offsets: asymmetric (an offset per group after the scales).
  int32_t quant_group = 0;
  bool quant_offsets = false;
};

struct WrittenWeight {
  uint64_t offset = 0;
  uint64_t byte_size = 0;    // produced bytes
  uint64_t stored_size = 0;  // bytes in the file (compressed size when compressing)
  uint64_t xxh3 = 0;         // of the produced bytes
};

struct WeightWriterOptions {
  /// zstd-compress each tensor (one frame per tensor, decompressed at open).
  bool zstd = false;
  int zstd_level = 3;
};

/// Feeds a tensor's bytes, in order, into the sink it is given.
using ByteProducer = std::function<Status(const ChunkSink& sink)>;

class WeightWriter {
 public:
  static Result<std::unique_ptr<WeightWriter>> create(const std::string& path,
                                                      const WeightWriterOptions& options = {});

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
  WeightWriter(std::unique_ptr<AtomicFile> f, const WeightWriterOptions& o)
      : file_(std::move(f)), options_(o) {}
  /// Writes `chunk` through the zstd stream (end = finish the frame).
  Status write_compressed(std::span<const uint8_t> chunk, bool end);
  std::unique_ptr<AtomicFile> file_;
  WeightWriterOptions options_;
  std::shared_ptr<void> zstd_;  // ZSTD_CCtx, created on first use
  std::vector<uint8_t> zstd_out_;
  std::vector<WeightEntrySpec> specs_;
  std::vector<WrittenWeight> written_;
};

}  // namespace tir::importer
