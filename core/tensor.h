// Tensor: a non-owning view (dtype, device, sizes, element strides, data). Memory belongs to
// the memory plan, the weight set or the caller; a Tensor never frees anything.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "core/dtype.h"

namespace tir {

inline constexpr int kMaxRank = 8;

enum class DeviceType : uint8_t { kCpu = 0, kCuda = 1 };

struct Tensor {
  DType dtype = DType::kUndefined;
  DeviceType device = DeviceType::kCpu;
  int32_t rank = 0;
  std::array<int64_t, kMaxRank> sizes{};
  std::array<int64_t, kMaxRank> strides{};  // in elements, ATen dim order
  void* data = nullptr;                     // null while only the shape is known

  std::span<const int64_t> shape() const { return {sizes.data(), static_cast<size_t>(rank)}; }
  int64_t size(int dim) const { return sizes[dim < 0 ? dim + rank : dim]; }
  int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= sizes[i];
    return n;
  }
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }

  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data);
  }

  /// Sets sizes and contiguous (row-major) strides.
  void set_shape(std::span<const int64_t> new_sizes) {
    rank = static_cast<int32_t>(new_sizes.size());
    for (int i = 0; i < rank; ++i) sizes[i] = new_sizes[i];
    set_contiguous_strides();
  }
  void set_shape(std::initializer_list<int64_t> new_sizes) {
    set_shape(std::span<const int64_t>(new_sizes.begin(), new_sizes.size()));
  }
  void set_contiguous_strides() {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      strides[i] = s;
      s *= sizes[i];
    }
  }
  /// A 4-D [N, C, H, W] tensor stored N, H, W, C (PyTorch's channels_last, oneDNN's nhwc).
  void set_channels_last_strides() {
    strides[1] = 1;
    strides[3] = sizes[1];
    strides[2] = sizes[3] * sizes[1];
    strides[0] = sizes[2] * sizes[3] * sizes[1];
  }
  bool is_channels_last() const {
    if (rank != 4) return false;
    Tensor t = *this;
    t.set_channels_last_strides();
    for (int i = 0; i < 4; ++i)
      if (sizes[i] != 1 && strides[i] != t.strides[i]) return false;
    return true;
  }
  bool is_contiguous() const {
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
      if (sizes[i] != 1 && strides[i] != s) return false;
      s *= sizes[i];
    }
    return true;
  }
  bool same_shape(const Tensor& o) const {
    if (rank != o.rank) return false;
    for (int i = 0; i < rank; ++i)
      if (sizes[i] != o.sizes[i]) return false;
    return true;
  }
};

/// "[2, 3, 4]" for messages.
inline std::string shape_str(std::span<const int64_t> sizes) {
  std::string s = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes[i]);
  }
  return s + "]";
}

/// A contiguous Tensor over caller memory.
inline Tensor make_tensor(DType dtype, std::span<const int64_t> sizes, void* data) {
  Tensor t;
  t.dtype = dtype;
  t.set_shape(sizes);
  t.data = data;
  return t;
}

}  // namespace tir
