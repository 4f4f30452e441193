#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "runtime/weights/streaming_weights.h"

namespace tir {
Result<std::shared_ptr<WeightPool>> WeightPool::create(size_t budget) {
  if (budget == 0)
    return make_error(StatusCode::kInvalidArgument, "weight budget must be more than 0 bytes");
  std::shared_ptr<WeightPool> pool(new WeightPool());
  pool->budget_ = round_up(budget, kGrain);
  void* p = mmap(nullptr, round_up(pool->budget_, kPage), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return make_error(StatusCode::kInternal, "weight budget of ", budget,
                      " bytes: cannot reserve the pool (", std::strerror(errno), ")");
  pool->base_ = static_cast<uint8_t*>(p);
  pool->free_.push_back({0, pool->budget_});
  return pool;
}

WeightPool::~WeightPool() {
  if (base_) munmap(base_, round_up(budget_, kPage));
}

uint8_t* WeightPool::try_allocate(size_t bytes, size_t align) {
  bytes = round_up(std::max<size_t>(bytes, 1), kGrain);
  align = std::max(align, kGrain);
  std::lock_guard lock(mu_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    const size_t start = round_up(it->first, align);  // the base is page-aligned
    const size_t end = it->first + it->second;
    if (start > end || end - start < bytes) continue;
    const size_t front = start - it->first;
    const size_t back = end - (start + bytes);
    if (front > 0) {  // the range keeps its unaligned head; the tail follows it
      it->second = front;
      if (back > 0) free_.insert(it + 1, {start + bytes, back});
    } else if (back > 0) {
      it->first = start + bytes;
      it->second = back;
    } else {
      free_.erase(it);
    }
    used_ += bytes;
    peak_ = std::max(peak_, used_);
    return base_ + start;
  }
  return nullptr;
}

void WeightPool::free(uint8_t* block, size_t bytes) {
  bytes = round_up(std::max<size_t>(bytes, 1), kGrain);
  const size_t offset = size_t(block - base_);
  std::lock_guard lock(mu_);
  used_ -= bytes;
  auto it = std::lower_bound(free_.begin(), free_.end(), std::pair<size_t, size_t>{offset, 0});
  it = free_.insert(it, {offset, bytes});
  // Coalesce with the following range, then with the preceding one.
  if (auto next = it + 1; next != free_.end() && it->first + it->second == next->first) {
    it->second += next->second;
    free_.erase(next);
  }
  if (it != free_.begin())
    if (auto prev = it - 1; prev->first + prev->second == it->first) {
      prev->second += it->second;
      free_.erase(it);
    }
}

size_t WeightPool::used_bytes() const {
  std::lock_guard lock(mu_);
  return used_;
}

size_t WeightPool::peak_bytes() const {
  std::lock_guard lock(mu_);
  return peak_;
}

Result<size_t> parse_byte_size(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(s.c_str(), &end);
  std::string_view unit(end, s.c_str() + s.size() - end);
  double scale = 1;
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.remove_suffix(1);
  if (unit.size() == 1) {
    switch (unit[0]) {
      case 'k':
      case 'K':
        scale = 1024.0;
        break;
      case 'm':
      case 'M':
        scale = 1024.0 * 1024;
        break;
      case 'g':
      case 'G':
        scale = 1024.0 * 1024 * 1024;
        break;
      case 't':
      case 'T':
        scale = 1024.0 * 1024 * 1024 * 1024;
        break;
      default:
        scale = 0;
    }
  } else if (!unit.empty()) {
    scale = 0;
  }
  if (end == s.c_str() || errno != 0 || scale == 0 || !(value > 0) || !std::isfinite(value))
    return make_error(StatusCode::kInvalidArgument, "'", s,
                      "' is not a byte size (a positive number with an optional K, M, G or T)");
  return static_cast<size_t>(value * scale);
}

}  // namespace tir
