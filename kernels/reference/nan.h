// NaN test for the reference kernels' element types (integers are never NaN).
#pragma once

#include <cmath>
#include <type_traits>

namespace tir::kernels {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

}  // namespace tir::kernels
