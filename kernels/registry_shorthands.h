// Short names for the fields of a KernelEntry (kernels/registry.h) that the backends'
// registration tables (kernels/reference/, kernels/cpu/, kernels/cuda/) write in every row:
// defined once here, so that the registration files read alike and can share a translation
// unit (unity builds).
#pragma once

#include "core/dtype.h"
#include "core/tensor.h"
#include "kernels/registry.h"

namespace tir::kernels {

inline constexpr KernelImpl kRef = KernelImpl::kReference;
inline constexpr KernelImpl kOpt = KernelImpl::kOptimized;
inline constexpr DeviceType kCpu = DeviceType::kCpu;
inline constexpr DeviceType kGpu = DeviceType::kCuda;
/// A kernel for inputs of any dtype (KernelEntry::dtype).
inline constexpr DType kAny = DType::kUndefined;
inline constexpr DType kBool = DType::kBool;
inline constexpr DType kI32 = DType::kInt32;
inline constexpr DType kI64 = DType::kInt64;
inline constexpr DType kF32 = DType::kFloat32;
inline constexpr DType kF64 = DType::kFloat64;
inline constexpr DType kF16 = DType::kFloat16;
inline constexpr DType kBF16 = DType::kBFloat16;

}  // namespace tir::kernels
