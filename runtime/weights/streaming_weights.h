// Streaming weights: models larger than memory. StreamingWeights is a WeightSource that keeps
// only the weights the next nodes need resident, in a WeightPool of a fixed byte budget, and
// reads them from the tir weight file ahead of the executor, in the order the method's plan
// acquires them (each weight's first and last use are computed at prepare, runtime/exec/plan.h).
//
//  - Reads: tensors that lie next to each other in the file are read in one request (a
//    chunk, up to kMaxChunkBytes); `tirc import` and `tirc weights pack` lay tensors out in
//    first-use order, so a run reads the file front to back. I/O threads (io_threads, four
//    by default: several reads in flight, one verifying while others read) read ahead as far
//    as the budget allows; a chunk goes back to the pool after the last use of its tensors in
//    the run, and whatever a run still holds is dropped when it ends.
//  - Page cache: chunks of kDirectMinBytes or more are read with O_DIRECT into 4 KiB-aligned
//    pool memory (the default: measured in bench/streaming/, it keeps the kernel from caching
//    what tir already holds); smaller chunks, and all of them where O_DIRECT is off or refused
//    by the filesystem, are read exactly (64-byte pool grain) with pread + posix_fadvise
//    (DONTNEED), so a model of a few KiB streams within a budget of a quarter of its weights.
//  - Checks: each tensor's xxh3 is verified as it is read (not the whole file at open); a
//    zstd tensor is read compressed and inflated into the pool, bf16/fp16 ones widened there.
//    A short read (the file truncated underneath) or a checksum mismatch (overwritten) fails
//    that run with an error naming the tensor.
//  - Budget: a method whose nodes need more weight bytes resident at once than the budget
//    is refused when it is bound (check_uses: the error names the node, its tensors and the
//    minimum budget). Should the pool be too fragmented for the next chunk while the executor
//    waits for it, that chunk goes to the heap instead (counted in overdraft_bytes), so a run
//    never hangs.
//  - Sharing: several sessions (the methods of one model, prefill and decode) may share one
//    pool; runs on one pool take turns (a run holds it from begin_run to end_run). An overlay's
//    replaced tensors are served from memory; swap_weights binds a new source to the pool.
//
// Kernels see streamed weights as they see activations (no data at prepare): GEMMs read them
// unpacked, and bf16 compute converts them per call, so no packed copy outlives the budget.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/weights/weight_source.h"

namespace tir {

/// A byte budget of pool memory: one anonymous mapping of `budget` bytes (pages become
/// resident as they are first written), handed out first fit in blocks of kGrain bytes,
/// aligned to kGrain or (for O_DIRECT reads) 4 KiB. Thread-safe. Shared by the streaming
/// sources bound to it.
class WeightPool {
 public:
  static Result<std::shared_ptr<WeightPool>> create(size_t budget);
  ~WeightPool();
  WeightPool(const WeightPool&) = delete;
  WeightPool& operator=(const WeightPool&) = delete;

  static constexpr size_t kGrain = 64;
  /// The page size: O_DIRECT reads and the pool's reservation are aligned to it.
  static constexpr size_t kPage = 4096;
  /// `n` rounded up to a multiple of `to`.
  static constexpr size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }
  size_t budget() const { return budget_; }
  /// A block of `bytes` (rounded up to kGrain) at an address aligned to `align` (a power of
  /// two), or nullptr when no free range is large enough.
  uint8_t* try_allocate(size_t bytes, size_t align = kGrain);
  void free(uint8_t* block, size_t bytes);
  /// Bytes handed out now / at most so far.
  size_t used_bytes() const;
  size_t peak_bytes() const;
  /// Held by one run at a time (recursively: a cond branch runs inside its method's run).
  std::recursive_mutex& run_mutex() { return run_mu_; }

 private:
  WeightPool() = default;
  uint8_t* base_ = nullptr;
  size_t budget_ = 0;
  mutable std::mutex mu_;
  std::vector<std::pair<size_t, size_t>> free_;  // (offset, size), sorted, coalesced
  size_t used_ = 0, peak_ = 0;
  std::recursive_mutex run_mu_;
};

struct StreamingOptions {
  /// Verify each tensor's xxh3 as it is read.
  bool verify_checksums = true;
  /// Read chunks of kDirectMinBytes or more with O_DIRECT (falls back to pread +
  /// posix_fadvise DONTNEED where refused).
  bool direct_io = true;
  /// Threads reading ahead (at least 1). Four measured fastest (bench/streaming: 1.13x the
  /// single-stream read time per decode forward, vs 1.25x with two and 1.63x with one).
  int io_threads = 4;
};

/// Parses a byte count with an optional K, M, G or T suffix (powers of 1024): "512M".
Result<size_t> parse_byte_size(std::string_view text);

class StreamingWeights final : public WeightSource {
 public:
  /// Streams the weights of `model` from the tir weight file behind `set` (a set opened
  /// from a file, or an overlay whose base is one; opening it with
  /// WeightSetOptions{.verify_checksums = false, .decode = false} touches no tensor bytes).
  static Result<std::shared_ptr<StreamingWeights>> bind(const ir::ModelView& model,
                                                        std::shared_ptr<const WeightSet> set,
                                                        std::shared_ptr<WeightPool> pool,
                                                        const StreamingOptions& options = {});
  ~StreamingWeights() override;

  Result<const Tensor*> acquire(WeightId id) override;
  void release(WeightId id) override;
  kernels::WeightKey key(WeightId id) const override { return keys_[id]; }
  bool resident() const override { return false; }
  const WeightSet& set() const override { return *set_; }
  Status check_uses(std::string_view method, std::span<const NodeWeights> uses) override;
  void begin_run(std::span<const WeightId> order) override;
  void end_run() override;

  const std::shared_ptr<WeightPool>& pool() const { return pool_; }
  /// Bytes read from the file so far; chunks read; bytes that went to the heap because the
  /// pool was too fragmented (peak).
  uint64_t bytes_read() const { return bytes_read_.load(); }
  uint64_t chunks_read() const { return chunks_read_.load(); }
  size_t overdraft_bytes() const { return overdraft_peak_.load(); }
  /// True when reads bypass the page cache with O_DIRECT.
  bool direct_io() const { return direct_; }

  static constexpr size_t kMaxChunkBytes = size_t{8} << 20;
  /// Chunks smaller than this are read buffered (exact bytes), larger ones with O_DIRECT.
  static constexpr size_t kDirectMinBytes = size_t{256} << 10;

 private:
  enum class ChunkState : uint8_t { kEmpty, kLoading, kReady, kFailed };
  /// An index entry, copied: the file may be truncated underneath (its index with it).
  struct Entry {
    std::string name;
    uint64_t offset = 0, stored_size = 0, byte_size = 0, xxh3 = 0;
    bool zstd = false;
    DType dtype = DType::kUndefined, stored = DType::kUndefined;
    size_t logical_bytes = 0;
    int64_t rows = 0, cols = 0;  // stored int8 (quant_axis >= 0): its 2-D shape
    int quant_axis = -1;
    bool smoothed = false;       // 1/s per input channel follows the scales
    int64_t quant_group = 0;     // > 0: stored int4 (core/quantize_int4.h)
    bool quant_offsets = false;  // int4 asymmetric
    bool plain() const { return !zstd && stored == dtype; }
  };
  struct Member {
    int32_t slot;
    Entry entry;
    size_t decoded_at;  // offset of its inflated/widened bytes in the block; npos: in place
  };
  struct Chunk {
    uint64_t offset = 0;     // file offset of the read (4 KiB-aligned when direct)
    size_t read_bytes = 0;   // (a multiple of 4 KiB when direct)
    size_t block_bytes = 0;  // read + decoded bytes
    bool direct = false;     // read with O_DIRECT into a 4 KiB-aligned block
    std::vector<Member> members;
    ChunkState state = ChunkState::kEmpty;
    uint8_t* block = nullptr;
    bool on_heap = false;
    int holders = 0;            // acquires not yet released
    int remaining = 0;          // acquires the current run has yet to make
    int32_t scheduled_at = -1;  // position in the current run's schedule
    std::string error;
  };
  StreamingWeights() = default;
  /// Copies the index (entries_) and plans the chunks for the pool's budget.
  Status build_chunks(const ir::WeightFileView& file);
  /// The chunks a budget of `budget` bytes reads (their size follows it) and each slot's.
  std::vector<Chunk> plan_chunks(size_t budget, std::vector<int32_t>* chunk_of_slot) const;
  /// The most chunk bytes in use at once over `uses` (node order) and the node there.
  struct Peak {
    size_t bytes = 0, at = 0;
  };
  Peak peak_of(const std::vector<Chunk>& chunks, const std::vector<int32_t>& chunk_of_slot,
               std::span<const NodeWeights> uses) const;
  /// Reads and checks chunk `c` into its block (no lock held); "" or the error.
  std::string load(Chunk& c);
  /// Takes a block for `c`: from the pool, else (when `force`) from the heap.
  bool take_block(Chunk& c, bool force);
  void drop_block(Chunk& c);
  void io_loop();

  std::shared_ptr<WeightPool> pool_;
  StreamingOptions options_;
  std::string path_;
  int fd_ = -1;         // buffered reads
  int direct_fd_ = -1;  // O_DIRECT reads; -1 when off or refused
  bool direct_ = false;
  std::vector<Entry> entries_;  // per slot: the file's index
  std::vector<Chunk> chunks_;
  std::vector<int32_t> chunk_of_slot_;    // -1: not in the file's index (overlay-only)
  std::vector<Tensor> tensors_;           // per slot; data set while its chunk is ready
  std::vector<int32_t> slot_of_;          // per WeightId
  std::vector<const Tensor*> in_memory_;  // per WeightId: an overlay's tensor, else nullptr
  std::vector<kernels::WeightKey> keys_;  // per WeightId
  std::vector<std::string> names_;        // per WeightId

  std::mutex mu_;  // guards chunks' state and the schedule below
  std::condition_variable cv_;
  std::vector<int32_t> schedule_;  // chunks in first-use order for the current run
  size_t next_ = 0;                // the I/O thread's position in schedule_
  int depth_ = 0;                  // nested begin_run
  int io_busy_ = 0;                // I/O threads reading now
  bool stop_ = false;
  int32_t awaited_ = -1;  // the chunk the executor waits for
  std::vector<std::thread> io_;
  std::atomic<uint64_t> bytes_read_{0}, chunks_read_{0};
  std::atomic<size_t> overdraft_{0}, overdraft_peak_{0};
};

}  // namespace tir
