#include "runtime/weights/streaming_weights.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "core/float16.h"
#include "core/quantize.h"
#include "core/quantize_int4.h"
#include "ir/weight_file.h"

namespace tir {
namespace {

constexpr size_t kNpos = size_t(-1);

/// "12.5 MiB", "48.0 KiB", "512 bytes".
std::string mib(size_t bytes) {
  char buf[32];
  if (bytes >= (size_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / (1 << 20));
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  return buf;
}

/// A logical (dtype, shape) size of an entry: what the model reads.
size_t logical_bytes(const ir::fb::WeightEntry& e) {
  size_t n = dtype_size(ir::to_dtype(e.dtype()));
  if (e.shape())
    for (int64_t d : *e.shape()) n *= size_t(d);
  return n;
}

}  // namespace

Result<std::shared_ptr<StreamingWeights>> StreamingWeights::bind(
    const ir::ModelView& model, std::shared_ptr<const WeightSet> set,
    std::shared_ptr<WeightPool> pool, const StreamingOptions& options) {
  if (!set || !pool)
    return make_error(StatusCode::kInvalidArgument, "streaming weights: no weight set or pool");
  const std::string& path = set->tir_file();
  if (path.empty())
    return make_error(StatusCode::kUnsupported, "weight budget: '", set->path(),
                      "' is not a tir weight file (streaming reads tir weight files; "
                      "`tirc import` writes one)");
  std::shared_ptr<StreamingWeights> s(new StreamingWeights());
  s->set_ = set;
  s->pool_ = std::move(pool);
  s->options_ = options;
  s->path_ = path;
  // The index is read through a mapping of its own (only its pages are touched); tensor
  // bytes through the descriptor below.
  TIR_ASSIGN_OR_RETURN(auto index_bytes, data_source_mmap(path));
  TIR_ASSIGN_OR_RETURN(ir::WeightFileView file,
                       ir::WeightFileView::open(index_bytes->bytes(), path));
  if (file.signature() != set->signature() || !file.index().entries() ||
      file.index().entries()->size() != set->size())
    return make_error(StatusCode::kInvalidArgument, "weight file '", path,
                      "' changed since its weight set was opened");
  s->direct_fd_ = options.direct_io ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT) : -1;
  s->direct_ = s->direct_fd_ >= 0;
  s->fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (s->fd_ < 0)
    return make_error(StatusCode::kIo, "cannot open '", path, "': ", std::strerror(errno));
  TIR_RETURN_IF_ERROR(s->build_chunks(file));
  index_bytes.reset();  // nothing points into the mapping any more

  const ir::fb::Model& m = model.model();
  const size_t n = m.weights() ? m.weights()->size() : 0;
  s->slot_of_.assign(n, -1);
  s->in_memory_.assign(n, nullptr);
  s->keys_.resize(n);
  s->names_.resize(n);
  for (size_t id = 0; id < n; ++id) {
    const ir::fb::WeightRef& w = *m.weights()->Get(id);
    TIR_ASSIGN_OR_RETURN(const int32_t slot, weight_slot(*set, w));
    s->slot_of_[id] = slot;
    s->names_[id] = std::string(ir::str(w.name()));
    s->keys_[id] = {slot, set->generation(size_t(slot))};
    if (set->replaced(size_t(slot))) s->in_memory_[id] = &set->tensor(size_t(slot));
  }
  for (int t = 0; t < std::max(options.io_threads, 1); ++t) {
    try {
      s->io_.emplace_back([p = s.get()] { p->io_loop(); });
    } catch (const std::system_error& e) {
      if (s->io_.empty())  // the ones started serve every read; none at all is an error
        return make_error(StatusCode::kIo, "weight file '", path,
                          "': cannot start a reader thread (", e.what(), ")");
      break;
    }
  }
  return s;
}

Status StreamingWeights::build_chunks(const ir::WeightFileView& file) {
  const auto& entries = *file.index().entries();
  entries_.resize(entries.size());
  tensors_.resize(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const ir::fb::WeightEntry* e = entries.Get(i);
    tensors_[i] = set_->tensor(i);
    tensors_[i].data = nullptr;
    Entry& info = entries_[i];
    info.name = std::string(ir::str(e->name()));
    info.offset = e->offset();
    info.stored_size = e->stored_size();
    info.byte_size = e->byte_size();
    info.xxh3 = e->xxh3();
    info.zstd = e->compression() == ir::fb::Compression::Zstd;
    info.dtype = ir::to_dtype(e->dtype());
    info.stored = ir::entry_stored_dtype(*e);
    info.logical_bytes = logical_bytes(*e);
    if (info.stored == DType::kInt8 && info.dtype != info.stored) {  // ir/weights.fbs
      info.quant_axis = e->quant_axis();
      info.smoothed = e->smoothed();
      info.quant_group = e->quant_group();
      info.quant_offsets = e->quant_offsets();
      const Int8Matrix m = int8_matrix(e->shape()->data(), e->shape()->size());
      info.rows = m.rows;
      info.cols = m.cols;
    }
  }
  chunks_ = plan_chunks(pool_->budget(), &chunk_of_slot_);
  return ok_status();
}

std::vector<StreamingWeights::Chunk> StreamingWeights::plan_chunks(
    size_t budget, std::vector<int32_t>* chunk_of_slot) const {
  // Tensors join the previous chunk when they follow it in the file (at most a page apart)
  // and the chunk's block (read + inflated bytes) stays within an eighth of the budget.
  const size_t limit = std::clamp<size_t>(budget / 8, WeightPool::kGrain, kMaxChunkBytes);
  std::vector<Chunk> chunks;
  size_t decoded = 0;  // inflated/widened bytes of the last chunk
  chunk_of_slot->assign(entries_.size(), -1);
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    const uint64_t end = e.offset + e.stored_size;
    const size_t own = e.plain() ? 0 : WeightPool::round_up(e.logical_bytes, WeightPool::kGrain);
    const bool join =
        !chunks.empty() && e.offset >= chunks.back().offset &&
        end - chunks.back().offset + decoded + own <= limit &&
        e.offset <= chunks.back().offset + chunks.back().read_bytes + WeightPool::kPage;
    if (!join) {
      Chunk c;
      c.offset = e.offset;
      chunks.push_back(std::move(c));
      decoded = 0;
    }
    decoded += own;
    Chunk& c = chunks.back();
    c.read_bytes = std::max<size_t>(c.read_bytes, end - c.offset);
    c.members.push_back({int32_t(i), e, kNpos});
    (*chunk_of_slot)[i] = int32_t(chunks.size() - 1);
  }
  for (Chunk& c : chunks) {
    // Large chunks are read with O_DIRECT: the read widens to whole pages around the tensors.
    c.direct = direct_ && c.read_bytes >= kDirectMinBytes;
    if (c.direct) {
      const uint64_t end = WeightPool::round_up(c.offset + c.read_bytes, WeightPool::kPage);
      c.offset = c.offset / WeightPool::kPage * WeightPool::kPage;
      c.read_bytes = size_t(end - c.offset);
    }
    c.block_bytes = WeightPool::round_up(c.read_bytes, WeightPool::kGrain);
    for (Member& mem : c.members)
      if (!mem.entry.plain()) {
        mem.decoded_at = c.block_bytes;
        c.block_bytes += WeightPool::round_up(mem.entry.logical_bytes, WeightPool::kGrain);
      }
    c.block_bytes =
        WeightPool::round_up(c.block_bytes, c.direct ? WeightPool::kPage : WeightPool::kGrain);
  }
  return chunks;
}

StreamingWeights::~StreamingWeights() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : io_) t.join();
  for (Chunk& c : chunks_) drop_block(c);
  if (fd_ >= 0) ::close(fd_);
  if (direct_fd_ >= 0) ::close(direct_fd_);
}

bool StreamingWeights::take_block(Chunk& c, bool force) {
  c.block = pool_->try_allocate(c.block_bytes, c.direct ? WeightPool::kPage : WeightPool::kGrain);
  c.on_heap = false;
  if (!c.block && force) {
    c.block = static_cast<uint8_t*>(std::aligned_alloc(
        WeightPool::kPage, WeightPool::round_up(c.block_bytes, WeightPool::kPage)));
    if (!c.block) return false;
    c.on_heap = true;
    const size_t now = overdraft_.fetch_add(c.block_bytes) + c.block_bytes;
    size_t peak = overdraft_peak_.load();
    while (now > peak && !overdraft_peak_.compare_exchange_weak(peak, now)) {
    }
  }
  return c.block != nullptr;
}

void StreamingWeights::drop_block(Chunk& c) {
  if (!c.block) return;
  if (c.on_heap) {
    std::free(c.block);
    overdraft_.fetch_sub(c.block_bytes);
  } else {
    pool_->free(c.block, c.block_bytes);
  }
  c.block = nullptr;
  for (const Member& mem : c.members) tensors_[mem.slot].data = nullptr;
  c.state = ChunkState::kEmpty;
}

std::string StreamingWeights::load(Chunk& c) {
  size_t got = 0;
  const int fd = c.direct ? direct_fd_ : fd_;
  while (got < c.read_bytes) {
    const ssize_t n = ::pread(fd, c.block + got, c.read_bytes - got, off_t(c.offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      return "weight file '" + path_ + "': tensor '" + c.members[0].entry.name +
             "' cannot be read: " + std::strerror(err);
    }
    if (n == 0) break;
    got += size_t(n);
    if (c.direct && size_t(n) % WeightPool::kPage != 0) break;  // end of file
  }
  if (!c.direct) posix_fadvise(fd_, off_t(c.offset), off_t(c.read_bytes), POSIX_FADV_DONTNEED);
  bytes_read_.fetch_add(got);
  chunks_read_.fetch_add(1);
  for (const Member& mem : c.members) {
    const Entry& e = mem.entry;
    const std::string& name = e.name;
    const size_t at = size_t(e.offset - c.offset);
    if (at + e.stored_size > got)
      return "weight file '" + path_ + "': tensor '" + name +
             "' cannot be read: the file ends at byte " + std::to_string(c.offset + got) +
             ", the tensor at byte " + std::to_string(e.offset + e.stored_size) +
             " (truncated since it was opened?)";
    uint8_t* bytes = c.block + at;
    size_t size = e.stored_size;
    std::vector<uint8_t> narrow;
    if (e.zstd) {
      const bool widen = e.stored != e.dtype;
      if (widen) narrow.resize(e.byte_size);
      uint8_t* out = widen ? narrow.data() : c.block + mem.decoded_at;
      const size_t n = ZSTD_decompress(out, e.byte_size, bytes, size);
      if (ZSTD_isError(n) || n != e.byte_size)
        return "weight file '" + path_ + "': tensor '" + name + "' does not decompress" +
               (ZSTD_isError(n) ? std::string(" (zstd: ") + ZSTD_getErrorName(n) + ")" : "");
      bytes = out;
      size = n;
    }
    if ((options_.verify_checksums || !e.plain()) && ir::content_hash(bytes, size) != e.xxh3)
      return "weight file '" + path_ + "': tensor '" + name +
             "' fails its checksum (the file changed since it was opened?)";
    const DType stored = e.stored;
    if (e.quant_group > 0) {  // int4 codes + scales (core/quantize_int4.h): dequantized
      float* out = reinterpret_cast<float*>(c.block + mem.decoded_at);
      dequantize_int4_rows(int4_view(bytes, e.rows, e.cols, e.quant_group, e.quant_offsets), 0,
                           e.rows, out);
      bytes = reinterpret_cast<uint8_t*>(out);
    } else if (e.quant_axis >= 0) {  // int8 + scales (core/quantize.h): dequantized into the pool
      float* out = reinterpret_cast<float*>(c.block + mem.decoded_at);
      const float* smooth =
          e.smoothed
              ? reinterpret_cast<const float*>(
                    bytes + int8_stored_bytes(e.rows * e.cols, e.quant_axis == 0 ? e.rows : e.cols))
              : nullptr;
      dequantize_int8_per_channel(
          reinterpret_cast<const int8_t*>(bytes),
          reinterpret_cast<const float*>(bytes + int8_scales_offset(e.rows * e.cols)), e.rows,
          e.cols, e.quant_axis, out, smooth);
      bytes = reinterpret_cast<uint8_t*>(out);
    } else if (stored != e.dtype) {
      float* out = reinterpret_cast<float*>(c.block + mem.decoded_at);
      for (size_t i = 0; i < size / 2; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, 2);
        out[i] = stored == DType::kBFloat16 ? bf16_to_float(h) : fp16_to_float(h);
      }
      bytes = reinterpret_cast<uint8_t*>(out);
    }
    tensors_[mem.slot].data = bytes;
  }
  return "";
}

void StreamingWeights::io_loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || (depth_ > 0 && next_ < schedule_.size()); });
    if (stop_) return;
    const int32_t ci = schedule_[next_];
    Chunk& c = chunks_[ci];
    if (c.state != ChunkState::kEmpty) {
      ++next_;
      continue;
    }
    // Waits for room; the chunk the executor is blocked on may go to the heap instead.
    if (!take_block(c, awaited_ == ci)) {
      cv_.wait(lock);
      continue;
    }
    ++next_;
    c.state = ChunkState::kLoading;
    ++io_busy_;
    lock.unlock();
    std::string error = load(c);
    lock.lock();
    --io_busy_;
    c.state = error.empty() ? ChunkState::kReady : ChunkState::kFailed;
    c.error = std::move(error);
    cv_.notify_all();
  }
}

Result<const Tensor*> StreamingWeights::acquire(WeightId id) {
  if (in_memory_[id]) return in_memory_[id];
  const int32_t slot = slot_of_[id];
  const int32_t ci = chunk_of_slot_[slot];
  std::unique_lock lock(mu_);
  Chunk& c = chunks_[ci];
  if (c.remaining > 0) --c.remaining;
  ++c.holders;
  for (;;) {
    switch (c.state) {
      case ChunkState::kReady:
        return &tensors_[slot];
      case ChunkState::kFailed: {
        --c.holders;
        return make_error(StatusCode::kIo, c.error);
      }
      case ChunkState::kLoading:
        break;
      case ChunkState::kEmpty:
        if (depth_ == 0 || c.scheduled_at < 0 || size_t(c.scheduled_at) < next_) {
          // Not ahead of the I/O thread (a cond branch's weight, or one dropped early):
          // this thread reads it.
          if (!take_block(c, true)) {
            --c.holders;
            return make_error(StatusCode::kInternal, "weight '", names_[id], "' needs ",
                              c.block_bytes, " bytes: out of memory");
          }
          c.state = ChunkState::kLoading;
          lock.unlock();
          std::string error = load(c);
          lock.lock();
          c.state = error.empty() ? ChunkState::kReady : ChunkState::kFailed;
          c.error = std::move(error);
          cv_.notify_all();
          continue;
        }
        break;
    }
    awaited_ = ci;
    cv_.notify_all();
    cv_.wait(lock);
    awaited_ = -1;
  }
}

void StreamingWeights::release(WeightId id) {
  if (in_memory_[id]) return;
  std::lock_guard lock(mu_);
  Chunk& c = chunks_[chunk_of_slot_[slot_of_[id]]];
  if (--c.holders > 0 || c.remaining > 0 || c.state != ChunkState::kReady) return;
  c.holders = 0;
  drop_block(c);
  cv_.notify_all();
}

void StreamingWeights::begin_run(std::span<const WeightId> order) {
  pool_->run_mutex().lock();
  std::lock_guard lock(mu_);
  if (depth_++ > 0) return;
  schedule_.clear();
  next_ = 0;
  for (WeightId id : order) {
    if (in_memory_[id]) continue;
    const int32_t ci = chunk_of_slot_[slot_of_[id]];
    Chunk& c = chunks_[ci];
    ++c.remaining;
    if (c.scheduled_at < 0) {
      c.scheduled_at = int32_t(schedule_.size());
      schedule_.push_back(ci);
    }
  }
  cv_.notify_all();
}

void StreamingWeights::end_run() {
  {
    std::unique_lock lock(mu_);
    if (--depth_ == 0) {
      schedule_.clear();
      next_ = 0;
      cv_.notify_all();
      cv_.wait(lock, [&] { return io_busy_ == 0; });
      for (Chunk& c : chunks_) {
        drop_block(c);
        c.holders = c.remaining = 0;
        c.scheduled_at = -1;
        c.error.clear();
      }
    }
  }
  pool_->run_mutex().unlock();
}

StreamingWeights::Peak StreamingWeights::peak_of(const std::vector<Chunk>& chunks,
                                                 const std::vector<int32_t>& chunk_of_slot,
                                                 std::span<const NodeWeights> uses) const {
  std::vector<int32_t> first(chunks.size(), -1), last(chunks.size(), -1);
  for (size_t i = 0; i < uses.size(); ++i)
    for (WeightId id : uses[i].weights) {
      if (in_memory_[id]) continue;
      const int32_t ci = chunk_of_slot[slot_of_[id]];
      if (first[ci] < 0) first[ci] = int32_t(i);
      last[ci] = int32_t(i);
    }
  std::vector<int64_t> delta(uses.size() + 1, 0);
  for (size_t ci = 0; ci < chunks.size(); ++ci)
    if (first[ci] >= 0) {
      delta[first[ci]] += int64_t(chunks[ci].block_bytes);
      delta[last[ci] + 1] -= int64_t(chunks[ci].block_bytes);
    }
  Peak peak;
  int64_t live = 0;
  for (size_t i = 0; i < uses.size(); ++i) {
    live += delta[i];
    if (size_t(live) > peak.bytes) peak = {size_t(live), i};
  }
  return peak;
}

namespace {

/// The budget a --weight-budget flag of whole KiB (below 1 MiB) or MiB names for `bytes`.
size_t flag_bytes(size_t bytes) {
  constexpr size_t kMiB = size_t{1} << 20;
  return bytes >= kMiB ? (bytes + kMiB - 1) / kMiB * kMiB : (bytes + 1023) / 1024 * 1024;
}

std::string flag_text(size_t bytes) {
  return bytes >= (size_t{1} << 20) ? std::to_string(bytes >> 20) + "M"
                                    : std::to_string(bytes >> 10) + "K";
}

}  // namespace

Status StreamingWeights::check_uses(std::string_view method, std::span<const NodeWeights> uses) {
  const Peak peak = peak_of(chunks_, chunk_of_slot_, uses);
  if (peak.bytes <= pool_->budget()) return ok_status();
  // The minimum: chunks grow with the budget (an eighth of it), so a larger budget may join
  // tensors of different lifetimes; raise it until the chunks it makes fit in it.
  size_t minimum = flag_bytes(peak.bytes);
  for (int round = 0; round < 64; ++round) {
    std::vector<int32_t> of_slot;
    const size_t need = peak_of(plan_chunks(minimum, &of_slot), of_slot, uses).bytes;
    if (need <= minimum) break;
    minimum = flag_bytes(need);
  }
  const NodeWeights& node = uses[peak.at];
  std::string tensors;
  size_t own = 0;
  std::vector<int32_t> seen;
  for (WeightId id : node.weights) {
    if (in_memory_[id]) continue;
    if (!tensors.empty()) tensors += ", ";
    tensors += "'" + names_[id] + "' (" + mib(tensors_[slot_of_[id]].nbytes()) + ")";
    const int32_t ci = chunk_of_slot_[slot_of_[id]];
    if (std::find(seen.begin(), seen.end(), ci) == seen.end()) {
      seen.push_back(ci);
      own += chunks_[ci].block_bytes;
    }
  }
  return make_error(StatusCode::kInvalidArgument, "weight budget ", mib(pool_->budget()),
                    " is too small for method '", method, "': node '", node.node, "' reads ",
                    tensors, ", ", mib(own), " as read, with ",
                    mib(peak.bytes - std::min(peak.bytes, own)),
                    " of weights of earlier nodes still in use; the minimum budget is ",
                    mib(minimum), " (--weight-budget ", flag_text(minimum), ")");
}

}  // namespace tir
