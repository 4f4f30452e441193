// Reader of safetensors files (what `safetensors.torch.save_file(model.state_dict(), ...)`
// writes). Format, little-endian:
//   [0, 8)           N: uint64, the length of the JSON header
//   [8, 8 + N)       header: a JSON object (may be padded with trailing spaces) mapping each
//                    tensor name to {"dtype": "F32", "shape": [2, 3], "data_offsets": [b, e]},
//                    plus an optional "__metadata__" object of string -> string
//   [8 + N, end)     the byte buffer; [b, e) are offsets into it
// Checked: header length against the file size, valid JSON object without duplicate names,
// known dtype, rank <= 8 and non-negative dims, shape x itemsize == e - b, offsets inside the
// buffer, ranges sorted without overlap or holes covering the whole buffer (as the format
// requires), and the metadata's type. Errors name the file and the tensor.
//
// This is the only JSON the runtime parses (DESIGN.md keeps JSON in the importer): the header
// is a few kB, and reading safetensors directly is what makes overlays and swaps from a
// PyTorch user's own files possible without a conversion step.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"

namespace tir {

struct SafetensorsEntry {
  std::string name;
  DType dtype = DType::kUndefined;
  std::vector<int64_t> shape;
  /// The tensor's bytes inside the parsed file (borrowed; may be unaligned for its dtype).
  std::span<const uint8_t> bytes;
};

struct SafetensorsFile {
  /// In file order (by data offset).
  std::vector<SafetensorsEntry> entries;
  std::map<std::string, std::string> metadata;
};

/// True when `file` starts like a safetensors file (a plausible header length followed by
/// '{'); used to pick a reader, not a validation.
bool safetensors_sniff(std::span<const uint8_t> file);

/// Parses and validates `file` (usually mmap'd, must outlive the result). `path` names the
/// file in errors: "safetensors file '<path>': tensor '<name>' ...".
Result<SafetensorsFile> safetensors_parse(std::span<const uint8_t> file, std::string_view path);

/// "F32" -> kFloat32; kUndefined for names tir has no dtype for.
DType safetensors_dtype(std::string_view name);

}  // namespace tir
