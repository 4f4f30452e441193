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
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>

#include "core/status.h"
#include "kernels/kernel.h"

namespace tir::kernels {

class PackedCache {
 public:
  /// The entry derived from weight `key` in the way `how` names (a packed layout's
  /// description); `make` builds it on first request, under the cache's lock, so concurrent
  /// callers wait for one copy instead of each making their own.
  Result<std::shared_ptr<void>> get(WeightKey key, const std::string& how,
                                    const std::function<Result<std::shared_ptr<void>>()>& make) {
    std::lock_guard<std::mutex> lock(mu_);
    const Key k{key.slot, how, key.generation};
    if (auto it = entries_.find(k); it != entries_.end()) return it->second;
    TIR_ASSIGN_OR_RETURN(std::shared_ptr<void> made, make());
    // Other generations of this slot and layout that only the cache still holds.
    for (auto it = entries_.lower_bound(Key{key.slot, how, 0});
         it != entries_.end() && std::get<0>(it->first) == key.slot &&
         std::get<1>(it->first) == how;)
      it = it->second.use_count() == 1 ? entries_.erase(it) : std::next(it);
    entries_.emplace(k, made);
    return made;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

 private:
  using Key = std::tuple<int32_t, std::string, uint64_t>;  // slot, how, generation
  mutable std::mutex mu_;
  std::map<Key, std::shared_ptr<void>> entries_;
};

}  // namespace tir::kernels
