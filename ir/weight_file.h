// The tir weight file (w.bin), version 1.
//
// Layout, little-endian:
//   [0, 64)        WeightFileHeader (below)
//   [64, ...)      tensor data; every tensor starts at a multiple of `alignment` (>= 64)
//   [index_offset, index_offset + index_size)
//                  FlatBuffer `WeightIndex` (ir/weights.fbs, identifier "TIRW"): for each
//                  tensor its name, aliases, dtype, shape, offset, stored size, byte size,
//                  compression and xxh3-64 of the (decompressed) bytes
// The index sits at the end so the writer can stream tensors in one pass and patch the
// header last.
//
// Compression and narrow storage (`tirc weights pack`): an entry may be zstd-compressed
// (compression = Zstd, stored_size = compressed bytes) and/or hold a Float32 tensor as
// Float16/BFloat16 (stored_dtype), or a 2-D Float32 tensor as Int8 with per-channel scales
// (stored_dtype Int8, quant_axis; layout in ir/weights.fbs and core/quantize.h). `dtype` is always
// the logical dtype the model expects, so the signature of a packed file equals the original's;
// `byte_size` and `xxh3` describe the stored element bytes after decompression. Readers inflate and
// widen at open into memory they own (widening fp16/bf16 to fp32 is exact; int8 entries are
// dequantized and their int8 bytes kept for int8 kernels); plain entries stay zero-copy views.
// `signature` is weight_signature() over the index in file order; the .tir records the same value
// so a mismatched pair is caught at bind time.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/dtype.h"
#include "core/status.h"
#include "ir/weights_generated.h"

namespace tir::ir {

inline constexpr char kWeightFileMagic[8] = {'T', 'I', 'R', 'W', 'E', 'I', 'G', 'H'};
inline constexpr uint32_t kWeightFileVersion = 1;
inline constexpr uint32_t kWeightAlignment = 64;

struct WeightFileHeader {
  char magic[8];
  uint32_t version;
  uint32_t alignment;
  uint64_t index_offset;
  uint64_t index_size;
  uint64_t signature;
  uint64_t file_size;
  uint8_t reserved[16];
};
static_assert(sizeof(WeightFileHeader) == 64);

/// Running hash of (name, dtype, shape) in order: the identity of a weight layout.
class SignatureBuilder {
 public:
  SignatureBuilder();
  ~SignatureBuilder();
  SignatureBuilder(const SignatureBuilder&) = delete;
  SignatureBuilder& operator=(const SignatureBuilder&) = delete;
  void add(std::string_view name, DType dtype, std::span<const int64_t> shape);
  uint64_t finish() const;

 private:
  void* state_;
};

/// The element type of an entry's stored bytes: `stored_dtype` when set, else `dtype`.
DType entry_stored_dtype(const fb::WeightEntry& e);

/// xxh3-64 of a byte range.
uint64_t content_hash(const void* data, size_t size);

/// A verified weight file in memory (usually mmap'd). Borrowed bytes must outlive it.
class WeightFileView {
 public:
  /// Checks magic, version, bounds, the index (FlatBuffers verifier), every entry's dtype,
  /// size, alignment and range, and the signature. `path` names the file in errors.
  /// Tensor checksums are not read here (see verify_entry_checksum).
  static Result<WeightFileView> open(std::span<const uint8_t> file, std::string_view path);

  const fb::WeightIndex& index() const { return *index_; }
  uint64_t signature() const { return index_->signature(); }
  /// The stored bytes of an entry (compressed if compression != None).
  std::span<const uint8_t> stored_bytes(const fb::WeightEntry& e) const {
    return file_.subspan(e.offset(), e.stored_size());
  }
  /// The entry named `name` (or with `name` among its aliases), or nullptr.
  const fb::WeightEntry* find(std::string_view name) const;

 private:
  WeightFileView(std::span<const uint8_t> file, const fb::WeightIndex* index)
      : file_(file), index_(index) {}
  std::span<const uint8_t> file_;
  const fb::WeightIndex* index_;
};

/// Compares an uncompressed entry's bytes to its recorded xxh3; error names the tensor.
Status verify_entry_checksum(const WeightFileView& file, const fb::WeightEntry& e,
                             std::string_view path);

}  // namespace tir::ir
