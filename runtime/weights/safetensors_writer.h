// Writer of safetensors files, the format runtime/weights/safetensors.h specifies and reads: an
// 8-byte little-endian header length, the JSON header (padded with spaces so the data starts 8-byte
// aligned, as the reference writer does), then every tensor's bytes packed in the order given.
// Used by `tirc weights pack SRC -o out.safetensors` and by the Python module to turn a dict of
// arrays into a weight set.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/weights/safetensors.h"

namespace tir {

/// "F32" for kFloat32 ...; empty for a dtype safetensors has no name for.
std::string_view safetensors_dtype_name(DType dtype);

/// The whole file for `entries` (their bytes copied, in order) and `metadata`. Rejected, naming
/// the tensor: an empty or duplicate name, "__metadata__", a dtype safetensors cannot name, a
/// negative dim, or bytes whose size is not shape x itemsize.
Result<std::vector<uint8_t>> safetensors_serialize(
    std::span<const SafetensorsEntry> entries,
    const std::map<std::string, std::string>& metadata = {});

/// Called after each tensor is copied: bytes of tensor data done so far and in all.
using SafetensorsProgress = std::function<void(uint64_t done, uint64_t total)>;

/// safetensors_serialize, written to `path` atomically (nothing is left there on failure).
Status safetensors_write(const std::string& path, std::span<const SafetensorsEntry> entries,
                         const std::map<std::string, std::string>& metadata = {},
                         const SafetensorsProgress& progress = {});

}  // namespace tir
