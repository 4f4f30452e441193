// Derived copies of constant tensors (a weight packed into the layout a primitive reads),
// shared by every kernel that reads the same bytes the same way: the sessions and methods of
// a model and each thread's execution context then hold one packed copy, not one each.
//
// The cache belongs to the weight set whose bytes it derives from (WeightSet::packed_cache)
// and dies with it, so an entry can never be mistaken for another set's tensor that a later
// mapping happens to put at the same address.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/status.h"

namespace tir::kernels {

class PackedCache {
 public:
  /// The entry derived from the bytes at `data` in the way `how` names (a packed layout's
  /// description); `make` builds it on first request, under the cache's lock, so concurrent
  /// callers wait for one copy instead of each making their own.
  Result<std::shared_ptr<void>> get(const void* data, std::string how,
                                    const std::function<Result<std::shared_ptr<void>>()>& make) {
    std::lock_guard<std::mutex> lock(mu_);
    auto key = std::make_pair(data, std::move(how));
    if (auto it = entries_.find(key); it != entries_.end()) return it->second;
    TIR_ASSIGN_OR_RETURN(std::shared_ptr<void> made, make());
    entries_.emplace(std::move(key), made);
    return made;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::pair<const void*, std::string>, std::shared_ptr<void>> entries_;
};

}  // namespace tir::kernels
