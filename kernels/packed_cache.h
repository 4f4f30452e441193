// Derived copies of weights (a weight packed into the layout a primitive reads), shared by
// every kernel that reads the same bytes the same way: the sessions and methods of a model
// and each thread's execution context then hold one packed copy, not one each.
//
// Entries are keyed by the weight's WeightKey (its slot in the weight set and the generation
// of its bytes) and a description of the packed layout, never by address: a later mapping
// that happens to reuse an address cannot be mistaken for the tensor that was there. The
// cache belongs to a weight set's table and is shared by the overlays made from it
// (WeightSet::packed_cache), so an overlay repacks only the tensors it replaces. When an
// entry for one generation of a slot is made, the other generations of that slot and layout
// that no kernel holds any more are dropped: a chain of partial updates keeps one copy each.
//
// Storable entries (get_storable: plain bytes of a known size, e.g. a oneDNN blocked
// weight) may also come from a PackedStore, packed copies on disk that a process before this
// one made (runtime/weights/layout_cache.h): then nothing is packed and the bytes are read
// from the mapped file. The entries made here are listed for writing such a store.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/status.h"
#include "kernels/kernel.h"

namespace tir::kernels {

/// Packed copies kept outside the process (a layout cache file), for the bytes of one
/// generation of a weight set. Thread-safe.
class PackedStore {
 public:
  virtual ~PackedStore() = default;
  /// The stored bytes of weight `key` packed as `how`, exactly `size` of them and intact
  /// (checked on first request, unless `check` is false: then they are not read); empty when
  /// there is no such entry, it is for other bytes or another layout, or it fails its
  /// check: the caller then packs.
  virtual std::span<const uint8_t> find(WeightKey key, std::string_view how, size_t size,
                                        bool check = true) const = 0;
};

/// What a storable entry's maker returns: the entry and its packed bytes (owned by it).
struct PackedEntry {
  std::shared_ptr<void> owner;
  std::span<const uint8_t> bytes;
};

/// How many storable entries this process packed at run time and how many it read from a
/// store (tirrun --json: "packed_at_run", "packed_from_disk").
struct PackedCounts {
  uint64_t packed = 0, loaded = 0;
};
PackedCounts packed_counts();

class PackedCache {
 public:
  using Make = std::function<Result<std::shared_ptr<void>>()>;
  using MakeStorable = std::function<Result<PackedEntry>()>;
  /// Turns stored bytes (valid while the entry lives) into an entry.
  using Wrap = std::function<Result<std::shared_ptr<void>>(std::span<const uint8_t>)>;

  /// The entry derived from weight `key` in the way `how` names (a packed layout's
  /// description); `make` builds it on first request, under the cache's lock, so concurrent
  /// callers wait for one copy instead of each making their own.
  Result<std::shared_ptr<void>> get(WeightKey key, const std::string& how, const Make& make);
  /// The same for an entry of `size` plain bytes: from the store when it holds them (`wrap`
  /// makes the entry), else `make` packs them (and they are listed by storable()).
  Result<std::shared_ptr<void>> get_storable(WeightKey key, const std::string& how, size_t size,
                                             const Wrap& wrap, const MakeStorable& make);
  /// Whether get_storable(key, how, size, ...) would likely pack nothing: the entry is here
  /// or in the store (whose bytes are not checked yet: get_storable may still pack).
  bool has_storable(WeightKey key, const std::string& how, size_t size) const;
  /// Installs the store that get_storable reads (null: none); for the generation it holds.
  void set_store(std::shared_ptr<const PackedStore> store);
  /// Storable entries of `generation` held now, made here or read from the store, with
  /// their owners (kept alive by the caller while it reads the bytes).
  struct Stored {
    int32_t slot;
    std::string how;
    PackedEntry entry;
  };
  std::vector<Stored> storable(uint64_t generation) const;
  /// Storable entries of `generation` packed here and not yet marked saved (none: the store
  /// has them all).
  size_t unsaved(uint64_t generation) const;
  /// Marks `written` (listed by storable(generation)) as saved.
  void mark_saved(uint64_t generation, std::span<const Stored> written);
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

 private:
  using Key = std::tuple<int32_t, std::string, uint64_t>;  // slot, how, generation
  struct Entry {
    PackedEntry e;
    bool storable = false;
    bool saved = false;  // in the store (read from it, or written since)
  };
  void insert(const Key& k, Entry entry);

  mutable std::mutex mu_;
  std::map<Key, Entry> entries_;
  std::shared_ptr<const PackedStore> store_;
};

}  // namespace tir::kernels
