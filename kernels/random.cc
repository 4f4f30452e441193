#include "kernels/random.h"

namespace tir::kernels {

std::array<uint32_t, 4> philox4x32_10(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    const uint64_t p0 = uint64_t{kM0} * c[0], p1 = uint64_t{kM1} * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k[1],
         uint32_t(p0)};
  }
  return c;
}

uint64_t RandomStream::reserve(std::string_view node, uint64_t blocks) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!replaying_) return reserve(blocks);
  for (Reserved& r : reserved_)
    if (!r.returned && r.blocks == blocks && r.node == node) {
      r.returned = true;
      return r.first;
    }
  const uint64_t first = reserve(blocks);
  reserved_.push_back({std::string(node), blocks, first, true});
  return first;
}

void RandomStream::replay_begin() {
  std::lock_guard<std::mutex> lock(mutex_);
  replaying_ = true;
  for (Reserved& r : reserved_) r.returned = false;
}

void RandomStream::replay_end() {
  std::lock_guard<std::mutex> lock(mutex_);
  replaying_ = false;
  reserved_.clear();
}

RandomStream& default_random_stream() {
  static RandomStream stream(uint64_t{0});
  return stream;
}

}  // namespace tir::kernels
