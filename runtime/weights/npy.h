// Reading and writing NumPy .npy files (format versions 1.0-3.0, little-endian,
// C order). Only the dtypes tir knows are accepted; everything else is a clear error.
// bfloat16 travels as a 2-byte void ('<V2'), as NumPy saves ml_dtypes' bfloat16 (npy.cc).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/weights/host_tensor.h"

namespace tir {

/// Parses .npy bytes; `name` labels errors (usually the path).
Result<HostTensor> npy_parse(std::span<const uint8_t> bytes, const std::string& name);
Result<HostTensor> npy_read(const std::string& path);

/// Serialises a contiguous tensor as .npy version 1.0 (`header_only`: the bytes before its
/// data).
std::vector<uint8_t> npy_serialize(const Tensor& t, bool header_only = false);
/// Writes atomically (temp + rename).
Status npy_write(const std::string& path, const Tensor& t);

}  // namespace tir
