#include "kernels/packed_cache.h"

namespace tir::kernels {
namespace {

std::atomic<uint64_t> g_packed{0}, g_loaded{0};

/// An entry read from a store, holding the store (and so its mapping) while it lives.
std::shared_ptr<void> holding(std::shared_ptr<void> entry, std::shared_ptr<const PackedStore> s) {
  struct Both {
    std::shared_ptr<void> entry;
    std::shared_ptr<const PackedStore> store;
  };
  void* p = entry.get();
  auto both = std::make_shared<Both>(Both{std::move(entry), std::move(s)});
  return std::shared_ptr<void>(std::move(both), p);
}

}  // namespace

PackedCounts packed_counts() { return {g_packed.load(), g_loaded.load()}; }

Result<std::shared_ptr<void>> PackedCache::get(WeightKey key, const std::string& how,
                                               const Make& make) {
  std::lock_guard<std::mutex> lock(mu_);
  const Key k{key.slot, how, key.generation};
  if (auto it = entries_.find(k); it != entries_.end()) return it->second.e.owner;
  TIR_ASSIGN_OR_RETURN(std::shared_ptr<void> made, make());
  insert(k, Entry{{made, {}}, false});
  return made;
}

Result<std::shared_ptr<void>> PackedCache::get_storable(WeightKey key, const std::string& how,
                                                        size_t size, const Wrap& wrap,
                                                        const MakeStorable& make) {
  std::lock_guard<std::mutex> lock(mu_);
  const Key k{key.slot, how, key.generation};
  if (auto it = entries_.find(k); it != entries_.end()) return it->second.e.owner;
  if (store_) {
    if (const std::span<const uint8_t> bytes = store_->find(key, how, size); !bytes.empty()) {
      TIR_ASSIGN_OR_RETURN(std::shared_ptr<void> wrapped, wrap(bytes));
      std::shared_ptr<void> owner = holding(std::move(wrapped), store_);
      insert(k, Entry{{owner, bytes}, true, true});
      g_loaded.fetch_add(1, std::memory_order_relaxed);
      return owner;
    }
  }
  TIR_ASSIGN_OR_RETURN(PackedEntry made, make());
  std::shared_ptr<void> owner = made.owner;
  insert(k, Entry{std::move(made), true, false});
  g_packed.fetch_add(1, std::memory_order_relaxed);
  return owner;
}

bool PackedCache::has_storable(WeightKey key, const std::string& how, size_t size) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (entries_.count(Key{key.slot, how, key.generation}) != 0) return true;
  return store_ && !store_->find(key, how, size, /*check=*/false).empty();
}

void PackedCache::insert(const Key& k, Entry entry) {
  // Other generations of this slot and layout that only the cache still holds.
  const auto& [slot, how, generation] = k;
  for (auto it = entries_.lower_bound(Key{slot, how, 0});
       it != entries_.end() && std::get<0>(it->first) == slot && std::get<1>(it->first) == how;)
    it = it->second.e.owner.use_count() == 1 ? entries_.erase(it) : std::next(it);
  entries_.emplace(k, std::move(entry));
}

void PackedCache::set_store(std::shared_ptr<const PackedStore> store) {
  std::lock_guard<std::mutex> lock(mu_);
  store_ = std::move(store);
}

std::vector<PackedCache::Stored> PackedCache::storable(uint64_t generation) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Stored> out;
  for (const auto& [k, entry] : entries_)
    if (entry.storable && std::get<2>(k) == generation)
      out.push_back({std::get<0>(k), std::get<1>(k), entry.e});
  return out;
}

size_t PackedCache::unsaved(uint64_t generation) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [k, entry] : entries_)
    n += entry.storable && !entry.saved && std::get<2>(k) == generation;
  return n;
}

void PackedCache::mark_saved(uint64_t generation, std::span<const Stored> written) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Stored& s : written)
    if (auto it = entries_.find(Key{s.slot, s.how, generation}); it != entries_.end())
      it->second.saved = true;
}

}  // namespace tir::kernels
