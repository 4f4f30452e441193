// WeightSet: an immutable set of named tensors, shared by reference counting (sessions hold
// a shared_ptr, so a set stays alive while any run uses it). Thread-safe: read-only after
// it is built.
//
// Sources (WeightSet::open picks the reader by the file's first bytes):
//  - a tir weight file (ir/weight_file.h): plain tensors are views into the read-only mapping
//    (no copy); zstd-compressed ones are inflated at open into memory the set owns, their
//    xxh3 checked; tensors stored as bf16/fp16 are widened to the float32 the index says the
//    model expects. The set carries the file's signature.
//  - a safetensors file (runtime/weights/safetensors.h): views into the mapping where a tensor's
//  data
//    is aligned to its element size, an owned copy otherwise. No signature (0): binding checks
//    every tensor by name, dtype and shape instead (runtime/weights/weight_binding.h).
//  - an overlay (WeightSet::overlay): a base set with some tensors replaced by those of one or
//    more partial sets, later wins. It shares the base's table and everyone's memory, so it
//    costs a lookup per replaced tensor, not a pass over the model; it keeps the base's
//    signature, names and order.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"
#include "ir/weight_file.h"
#include "kernels/packed_cache.h"
#include "runtime/weights/data_loader.h"

namespace tir {

struct WeightSetOptions {
  /// Recompute every plain tensor's xxh3 at open and reject a mismatch (catches bit rot).
  /// Costs one pass over the file, mapping included; memory-bound, so it scales with
  /// threads up to the memory bandwidth. Compressed and narrow tensors are always checked,
  /// as they are read anyway. A failure names the first bad tensor in file order.
  bool verify_checksums = true;
  /// Threads that verify checksums and dequantize int8 tensors (the calling one included),
  /// tensors shared out largest first; 0 = every CPU this process may use (core/threads.h).
  int verify_threads = 0;
  /// With verify_checksums: check only the integer and boolean tensors at open (indices,
  /// sizes: what could lead a kernel astray), and the floating-point ones on threads of their
  /// own while the first run goes on. Session::run returns no outputs before every tensor is
  /// checked (WeightSet::verified): a bad one fails that run, naming the tensor, so a wrong
  /// value is never returned. Used by tirrun and tirrun generate (the first output no longer
  /// waits for a pass over the whole file).
  bool verify_in_background = false;
  /// Inflate zstd and widen bf16/fp16 entries at open (false: those tensors keep
  /// data == nullptr, for a streaming source that reads them when they are needed,
  /// runtime/weights/streaming_weights.h).
  bool decode = true;
  /// Read GEMM weights packed by an earlier process from the layout cache beside a tir weight
  /// file, and write it when packing happens here (runtime/weights/layout_cache.h; `tirrun
  /// --no-layout-cache` turns it off).
  bool layout_cache = true;
};

enum class WeightFormat { kTir, kSafetensors, kOverlay };

class WeightSet final : public kernels::WeightPages {
 public:
  /// Maps `path` and reads it as a tir weight file or safetensors, whichever it is.
  static Result<std::shared_ptr<const WeightSet>> open(const std::string& path,
                                                       const WeightSetOptions& options = {});
  /// Same over bytes already in memory (kept alive by the set).
  static Result<std::shared_ptr<const WeightSet>> from_source(
      std::shared_ptr<const DataSource> source, const WeightSetOptions& options = {});
  /// `base` with the tensors of each delta in turn (later wins). Every delta tensor must name
  /// a tensor of the base (or one of its aliases) with the same dtype and shape, else
  /// "overlay '<delta>': tensor '<name>' ...". The result shares all their memory.
  static Result<std::shared_ptr<const WeightSet>> overlay(
      std::shared_ptr<const WeightSet> base,
      std::span<const std::shared_ptr<const WeightSet>> deltas);
  /// Opens `paths[0]` as the base and overlays the others in order (`tirrun --weights A
  /// --weights B ...`); a single path is just open().
  static Result<std::shared_ptr<const WeightSet>> open_layers(std::span<const std::string> paths,
                                                              const WeightSetOptions& options = {});

  /// The tensor named `name` (or an alias of it), or nullptr. Valid while the set lives.
  const Tensor* find(std::string_view name) const;
  /// The slot (names() index) of `name` or an alias of it; -1 when absent. Slots are shared
  /// by a set and every overlay made from it.
  int32_t slot(std::string_view name) const;
  /// Generation of the bytes in slot `i`: unique per process for each set that supplies
  /// bytes (a file opened, a delta overlaid), so (slot, generation) names bytes that never
  /// change (kernels::WeightKey; packed copies are keyed by it).
  uint64_t generation(size_t i) const;
  /// Tensor `i` in names() order (an overlay's replacement where it has one). An int8-stored
  /// tensor is dequantized into float32 the first time it is asked for (thread-safe, once).
  const Tensor& tensor(size_t i) const;
  /// Tensor `i` as tensor(i), but an int8-stored one not dequantized: its float32 bytes are
  /// not there until tensor(i) is called once (kernels that read only the int8 storage, an
  /// int8 LLM's GEMMs, never need them: no float32 copy of the model in memory).
  const Tensor& stored_tensor(size_t i) const;
  /// Tensor `i`'s int8 storage when the file stores it so (`tirc weights pack --dtype int8`;
  /// tensor(i) is then its float32 dequantization), else null; null for an overlay's
  /// replacement.
  const kernels::QuantizedWeight* quantized(size_t i) const;
  /// Whether tensor(i)'s float32 bytes are there (always, but for an int8-stored tensor
  /// nothing has asked for yet).
  bool dequantized(size_t i) const;
  /// Signature of the weight layout (ir/weight_file.h); 0 when the source has none.
  uint64_t signature() const { return signature_; }
  size_t size() const { return table_->names.size(); }
  /// Canonical names in file order.
  const std::vector<std::string>& names() const { return table_->names; }
  /// Other names of tensor `i` (tied weights stored once); empty for most.
  const std::vector<std::string>& aliases(size_t i) const { return table_->aliases[i]; }
  /// The tir weight file the set (or an overlay's base) was read from; empty for safetensors
  /// and bytes in memory that came with no file name.
  const std::string& tir_file() const { return table_->tir_file; }
  /// The file, or "base + delta + ..." for an overlay (for messages).
  const std::string& path() const { return path_; }
  WeightFormat format() const { return format_; }
  /// Hint that tensor `i`'s bytes will not be read for a while (a kernel holds a packed
  /// copy): where they are a view into a mapped file, the pages wholly inside them leave this
  /// process's resident memory (DataSource::drop_pages); a later read maps them again. Bytes
  /// the set owns stay. Thread-safe.
  void drop_pages(size_t i) const { drop_pages(i, 0, SIZE_MAX); }
  /// The same for bytes [offset, offset + size) of tensor `i` (clipped to the tensor).
  void drop_pages(size_t i, size_t offset, size_t size) const;
  void drop(kernels::WeightKey key, size_t offset, size_t size) const override {
    if (key.valid()) drop_pages(size_t(key.slot), offset, size);
  }
  /// Bytes of all tensors, in their logical dtypes.
  size_t total_bytes() const { return table_->total_bytes; }
  /// Bytes held in memory the set owns (inflated, widened or realigned tensors); the rest
  /// are views into mapped files. An overlay counts its base's and deltas'.
  size_t owned_bytes() const { return owned_bytes_; }
  /// True when an overlay replaced tensor `i` (its bytes are a delta's, in memory).
  bool replaced(size_t i) const { return replaced_.count(i) != 0; }
  /// Tensors an overlay replaces (0 for a plain set).
  size_t num_replaced() const { return replaced_.size(); }
  /// Packed copies of this set's tensors that kernels made (kernels/packed_cache.h): shared by
  /// every session bound to the set and by the overlays made from it (keyed by slot and
  /// generation, so an overlay repacks only what it replaces), freed with the last of them.
  kernels::PackedCache& packed_cache() const { return *table_->packed_cache; }
  /// Writes the layout cache of the set's tir weight file (runtime/weights/layout_cache.h)
  /// when kernels packed tensors of the file that it lacks; nothing to do (no new packed
  /// copies, no file, or the cache turned off) is OK. Thread-safe.
  Status save_layouts() const;
  /// Where the set reads and writes its layout cache; empty when it has none.
  const std::string& layout_cache_file() const { return table_->layout_cache; }
  /// Checks that every file this set's tensors are mapped from still holds them (an
  /// overlay: its root and deltas). Reading a mapped file that someone truncated raises
  /// SIGBUS, so Session::run checks first: one fstat per file. The error names the file, its
  /// sizes and the first tensor past the new end (worded as the streaming reader's).
  Status check_mapped() const;
  /// Waits for the checksums verified in the background (WeightSetOptions::
  /// verify_in_background; an overlay: its root's and deltas') and returns their result,
  /// the same on every call. OK at once when there are none. Thread-safe.
  Status verified() const;

 private:
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  struct ChecksumJob;  // weight_set.cc
  struct Table {
    std::vector<Tensor> tensors;
    std::vector<std::string> names;
    std::vector<std::vector<std::string>> aliases;
    std::vector<kernels::QuantizedWeight> quantized;  // per tensor; data == nullptr: not int8
    /// Per int8 tensor: its float32 dequantization made, once, on first request (tensor()).
    struct Dequantization {
      std::once_flag once;
      std::atomic<bool> done{false};
    };
    std::vector<std::unique_ptr<Dequantization>> dequantization;  // per tensor; null: not int8
    int dequantize_threads = 0;
    std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> by_name;  // + aliases
    size_t total_bytes = 0;
    std::string tir_file;
    std::vector<uint64_t> hashes;        // per tensor: xxh3 from the tir weight file's index
    std::string layout_cache;            // its layout cache file; empty: none
    const DataSource* source = nullptr;  // the mapped file its views point into (kept by keep_)
    uint64_t generation = next_generation();  // of the bytes the table's tensors point at
    std::unique_ptr<kernels::PackedCache> packed_cache = std::make_unique<kernels::PackedCache>();
    std::shared_ptr<ChecksumJob> checksums;  // verified in the background; null: none
    Status add(const std::string& name, std::vector<std::string> aliases, const Tensor& t);
    void set_quantized(const kernels::QuantizedWeight& q);  // of the tensor added last
  };
  WeightSet() = default;
  static void attach_layout_cache(Table& table, uint64_t signature);
  /// Verifies `file`'s plain tensors as `options` say: none, all now, or the integer and
  /// boolean ones now and the floating-point ones on a thread it returns (null: none).
  static Result<std::shared_ptr<ChecksumJob>> verify_at_open(
      const ir::WeightFileView& file, const std::shared_ptr<const DataSource>& source,
      const WeightSetOptions& options);
  static Result<std::shared_ptr<const WeightSet>> from_tir(std::shared_ptr<const DataSource> source,
                                                           const WeightSetOptions& options);
  static Result<std::shared_ptr<const WeightSet>> from_safetensors(
      std::shared_ptr<const DataSource> source);
  /// 64-byte-aligned memory owned by this set.
  uint8_t* allocate(size_t bytes);

  std::shared_ptr<Table> table_ = std::make_shared<Table>();
  static uint64_t next_generation();
  struct Replacement {
    Tensor tensor;
    uint64_t generation = 0;                 // of the delta that supplied it
    std::shared_ptr<const WeightSet> owner;  // that delta, kept while this is not replaced
  };
  std::unordered_map<size_t, Replacement> replaced_;  // overlay: table index -> replacement
  std::vector<std::shared_ptr<const void>> keep_;     // sources, buffers, base and deltas
  /// Overlay: the set the first overlay of a chain was made over (never an overlay), so a
  /// chain of partial updates keeps only the root and the deltas still supplying a tensor.
  std::shared_ptr<const WeightSet> root_;
  uint64_t signature_ = 0;
  std::string path_;
  WeightFormat format_ = WeightFormat::kTir;
  size_t owned_bytes_ = 0;
};

}  // namespace tir
