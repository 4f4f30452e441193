// HostTensor: a Tensor that owns its (64-byte aligned) CPU memory. Used for .npy files,
// outputs copied out of a session, and tests.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>

#include "core/tensor.h"

namespace tir {

class HostTensor {
 public:
  HostTensor() = default;
  HostTensor(DType dtype, std::span<const int64_t> sizes) {
    view_.dtype = dtype;
    view_.set_shape(sizes);
    const size_t bytes = (view_.nbytes() + 63) / 64 * 64 + 64;
    buf_.reset(static_cast<uint8_t*>(std::aligned_alloc(64, bytes)));
    std::memset(buf_.get(), 0, bytes);
    view_.data = buf_.get();
  }
  /// A contiguous copy of `src` (which must be contiguous).
  static HostTensor copy_of(const Tensor& src) {
    HostTensor t(src.dtype, src.shape());
    if (src.nbytes()) std::memcpy(t.view_.data, src.data, src.nbytes());
    return t;
  }

  const Tensor& view() const { return view_; }
  Tensor& view() { return view_; }
  template <typename T>
  T* data() const {
    return static_cast<T*>(view_.data);
  }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  Tensor view_;
  std::unique_ptr<uint8_t[], Free> buf_;
};

}  // namespace tir
