#include "runtime/weights/layout_cache.h"

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "core/atomic_file.h"
#include "ir/weight_file.h"
#include "runtime/weights/data_loader.h"

namespace tir {
namespace {

constexpr char kMagic[8] = {'T', 'I', 'R', 'L', 'A', 'Y', 'O', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 64, kEntryFixed = 40, kDataAlign = 4096;

uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

template <typename T>
void put(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

template <typename T>
T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

class LayoutCacheFile final : public kernels::PackedStore {
 public:
  struct Entry {
    std::span<const uint8_t> bytes;
    uint64_t xxh3 = 0;
    mutable std::atomic<uint8_t> state{0};  // 0 unchecked, 1 intact, 2 corrupt
  };
  LayoutCacheFile(std::shared_ptr<const DataSource> source, uint64_t generation)
      : source_(std::move(source)), generation_(generation) {}

  std::span<const uint8_t> find(kernels::WeightKey key, std::string_view how, size_t size,
                                bool check) const override {
    if (key.generation != generation_) return {};
    const auto it = entries_.find({key.slot, std::string(how)});
    if (it == entries_.end() || it->second->bytes.size() != size) return {};
    const Entry& e = *it->second;
    uint8_t state = e.state.load(std::memory_order_acquire);
    if (!check) return state == 2 ? std::span<const uint8_t>{} : e.bytes;
    if (state == 0) {  // checked once; two threads checking at once agree
      state = ir::content_hash(e.bytes.data(), e.bytes.size()) == e.xxh3 ? 1 : 2;
      e.state.store(state, std::memory_order_release);
      if (state == 2)
        std::fprintf(stderr,
                     "tir: warning: layout cache '%s': an entry of tensor %d fails its checksum; "
                     "packing it at run time\n",
                     source_->name().c_str(), int(key.slot));
    }
    return state == 1 ? e.bytes : std::span<const uint8_t>{};
  }

  Status parse(const LayoutCacheOwner& owner);

 private:
  std::shared_ptr<const DataSource> source_;
  uint64_t generation_;
  std::map<std::pair<int32_t, std::string>, std::unique_ptr<Entry>> entries_;
};

Status LayoutCacheFile::parse(const LayoutCacheOwner& owner) {
  const std::span<const uint8_t> file = source_->bytes();
  auto bad = [&](auto&&... why) {
    return make_error(StatusCode::kCorrupt, "layout cache '", source_->name(), "': ", why...);
  };
  if (file.size() < kHeaderBytes || std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0)
    return bad("not a layout cache (bad magic)");
  const uint8_t* h = file.data();
  if (get<uint32_t>(h + 8) != kVersion) return bad("version ", get<uint32_t>(h + 8));
  const uint32_t count = get<uint32_t>(h + 12);
  const uint64_t index_at = get<uint64_t>(h + 24), index_bytes = get<uint64_t>(h + 32);
  if (get<uint64_t>(h + 48) != file.size())
    return bad("holds ", file.size(), " bytes, its header says ", get<uint64_t>(h + 48));
  if (index_at != kHeaderBytes || index_bytes > file.size() - kHeaderBytes)
    return bad("index out of bounds");
  const uint8_t* index = file.data() + index_at;
  if (ir::content_hash(index, index_bytes) != get<uint64_t>(h + 40))
    return bad("index fails its checksum");
  if (get<uint64_t>(h + 16) != owner.signature) return bad("made for another weight file");
  size_t at = 0;
  for (uint32_t i = 0; i < count; ++i) {
    if (index_bytes - at < kEntryFixed) return bad("index truncated");
    const uint8_t* p = index + at;
    const uint32_t slot = get<uint32_t>(p), key_bytes = get<uint32_t>(p + 4);
    const uint64_t weight_hash = get<uint64_t>(p + 8), offset = get<uint64_t>(p + 16),
                   size = get<uint64_t>(p + 24);
    if (key_bytes > index_bytes - at - kEntryFixed) return bad("index truncated");
    if (offset % kDataAlign != 0 || offset > file.size() || size > file.size() - offset)
      return bad("entry ", i, " out of bounds");
    auto e = std::make_unique<Entry>();
    e->bytes = file.subspan(offset, size);
    e->xxh3 = get<uint64_t>(p + 32);
    std::string key(reinterpret_cast<const char*>(p + kEntryFixed), key_bytes);
    at += align_up(kEntryFixed + key_bytes, 8);
    // Stale: made from other bytes than the weight file now holds in that slot.
    if (slot >= owner.hashes.size() || owner.hashes[slot] != weight_hash) continue;
    entries_.emplace(std::make_pair(int32_t(slot), std::move(key)), std::move(e));
  }
  return ok_status();
}

}  // namespace

std::string layout_cache_path(const std::string& weights) { return weights + ".layout"; }

Result<std::shared_ptr<const kernels::PackedStore>> layout_cache_open(
    const std::string& path, const LayoutCacheOwner& owner) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return make_error(StatusCode::kNotFound, "layout cache '", path, "': no such file");
  TIR_ASSIGN_OR_RETURN(auto source, data_source_mmap(path));  // refuses what is not a file
  auto store = std::make_shared<LayoutCacheFile>(std::move(source), owner.generation);
  TIR_RETURN_IF_ERROR(store->parse(owner));
  return std::shared_ptr<const kernels::PackedStore>(std::move(store));
}

Status layout_cache_write(const std::string& path, const LayoutCacheOwner& owner,
                          std::span<const kernels::PackedCache::Stored> entries) {
  std::vector<const kernels::PackedCache::Stored*> kept;
  for (const kernels::PackedCache::Stored& s : entries)
    if (s.slot >= 0 && size_t(s.slot) < owner.hashes.size() && !s.entry.bytes.empty())
      kept.push_back(&s);
  size_t index_bytes = 0;
  for (const auto* s : kept) index_bytes += align_up(kEntryFixed + s->how.size(), 8);
  std::vector<uint8_t> index;
  uint64_t offset = align_up(kHeaderBytes + index_bytes, kDataAlign);
  for (const auto* s : kept) {
    put<uint32_t>(index, uint32_t(s->slot));
    put<uint32_t>(index, uint32_t(s->how.size()));
    put<uint64_t>(index, owner.hashes[size_t(s->slot)]);
    put<uint64_t>(index, offset);
    put<uint64_t>(index, s->entry.bytes.size());
    put<uint64_t>(index, ir::content_hash(s->entry.bytes.data(), s->entry.bytes.size()));
    index.insert(index.end(), s->how.begin(), s->how.end());
    index.resize(align_up(index.size(), 8), 0);
    offset = align_up(offset + s->entry.bytes.size(), kDataAlign);
  }
  // The file ends with the last entry's bytes (the header records it: a truncated file is
  // refused at open).
  const uint64_t end = kept.empty()
                           ? kHeaderBytes + index.size()
                           : offset - align_up(kept.back()->entry.bytes.size(), kDataAlign) +
                                 kept.back()->entry.bytes.size();
  std::vector<uint8_t> header(kMagic, kMagic + sizeof(kMagic));
  put<uint32_t>(header, kVersion);
  put<uint32_t>(header, uint32_t(kept.size()));
  put<uint64_t>(header, owner.signature);
  put<uint64_t>(header, kHeaderBytes);
  put<uint64_t>(header, index.size());
  put<uint64_t>(header, ir::content_hash(index.data(), index.size()));
  put<uint64_t>(header, end);
  header.resize(kHeaderBytes, 0);
  // One writer at a time in this process (AtomicFile's temporary name is per process).
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  TIR_ASSIGN_OR_RETURN(auto out, AtomicFile::create(path));
  TIR_RETURN_IF_ERROR(out->write(header));
  TIR_RETURN_IF_ERROR(out->write(index));
  for (const auto* s : kept) {
    TIR_RETURN_IF_ERROR(out->write_zeros(align_up(out->size(), kDataAlign) - out->size()));
    TIR_RETURN_IF_ERROR(out->write(s->entry.bytes));
  }
  return out->commit();
}

}  // namespace tir
