#include "runtime/weights/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/json_strict.h"
#include "core/tensor.h"

namespace tir {
namespace {

using Json = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // the limit of the reference reader

struct Range {
  uint64_t begin = 0, end = 0;
  size_t entry = 0;
};

std::string offsets_str(const Range& r) {
  std::string s = "[";  // appended piecewise: GCC 12 warns falsely (-Wrestrict) on "[" + ...
  s += std::to_string(r.begin);
  s += ", ";
  s += std::to_string(r.end);
  s += "]";
  return s;
}

uint64_t header_length(std::span<const uint8_t> file) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | file[i];
  return n;
}

}  // namespace

DType safetensors_dtype(std::string_view name) {
  static constexpr std::pair<std::string_view, DType> kNames[] = {
      {"BOOL", DType::kBool},   {"U8", DType::kUInt8},         {"I8", DType::kInt8},
      {"I16", DType::kInt16},   {"I32", DType::kInt32},        {"I64", DType::kInt64},
      {"F16", DType::kFloat16}, {"BF16", DType::kBFloat16},    {"F32", DType::kFloat32},
      {"F64", DType::kFloat64}, {"C64", DType::kComplexFloat},
  };
  for (const auto& [n, d] : kNames)
    if (n == name) return d;
  return DType::kUndefined;
}

bool safetensors_sniff(std::span<const uint8_t> file) {
  if (file.size() < 10) return false;
  const uint64_t n = header_length(file);
  return n >= 2 && n <= kMaxHeaderBytes && file[8] == '{';
}

namespace {

template <typename... Parts>
Status corrupt(std::string_view path, Parts&&... parts) {
  return make_error(StatusCode::kCorrupt, "safetensors file '", path, "': ", parts...);
}

/// The header's JSON object (a key twice in one object is an error: which tensor or which
/// dtype would be meant?). `n`: header length, already checked to fit the file.
Result<Json> parse_header(std::span<const uint8_t> file, uint64_t n, std::string_view path) {
  const std::string_view text(reinterpret_cast<const char*>(file.data() + 8), n);
  TIR_ASSIGN_OR_RETURN(
      Json header, parse_json_strict(text, "safetensors file '" + std::string(path) + "': header"));
  if (!header.is_object()) return corrupt(path, "header is not a JSON object");
  return header;
}

/// Tensor `name` described by `info`; its byte range (relative to the data) in `*out_range`.
Result<SafetensorsEntry> parse_entry(const std::string& name, const Json& info,
                                     std::span<const uint8_t> data, std::string_view path,
                                     Range* out_range) {
  auto bad_tensor = [&](auto&&... parts) {
    return corrupt(path, "tensor '", name, "' ", parts...);
  };
  if (!info.is_object()) return bad_tensor("is not described by an object");
  const auto dtype_it = info.find("dtype");
  if (dtype_it == info.end() || !dtype_it->is_string()) return bad_tensor("has no dtype");
  const std::string dtype_name_str = dtype_it->get<std::string>();
  SafetensorsEntry e;
  e.name = name;
  e.dtype = safetensors_dtype(dtype_name_str);
  if (e.dtype == DType::kUndefined)
    return bad_tensor("has unknown or unsupported dtype '", dtype_name_str, "'");
  const auto shape_it = info.find("shape");
  if (shape_it == info.end() || !shape_it->is_array() || shape_it->size() > size_t(kMaxRank))
    return bad_tensor("has no shape or more than ", kMaxRank, " dims");
  uint64_t numel = 1;
  for (const Json& d : *shape_it) {
    if (!d.is_number_unsigned()) return bad_tensor("has a dim that is not a non-negative integer");
    const uint64_t v = d.get<uint64_t>();
    if (v > uint64_t(INT64_MAX) || __builtin_mul_overflow(numel, v, &numel))
      return bad_tensor("has a shape whose size overflows");
    e.shape.push_back(static_cast<int64_t>(v));
  }
  const auto offs = info.find("data_offsets");
  if (offs == info.end() || !offs->is_array() || offs->size() != 2 ||
      !(*offs)[0].is_number_unsigned() || !(*offs)[1].is_number_unsigned())
    return bad_tensor("has no data_offsets [begin, end]");
  Range& r = *out_range;
  r.begin = (*offs)[0].get<uint64_t>();
  r.end = (*offs)[1].get<uint64_t>();
  if (r.begin > r.end) return bad_tensor("has data_offsets ", offsets_str(r), " with begin > end");
  if (r.end > data.size())
    return bad_tensor("has data_offsets ", offsets_str(r), " past the end of the data (",
                      data.size(), " bytes)");
  uint64_t need = 0;
  if (__builtin_mul_overflow(numel, dtype_size(e.dtype), &need) || need != r.end - r.begin)
    return bad_tensor("is ", dtype_name(e.dtype), shape_str(e.shape), " (", need,
                      " bytes) but its data_offsets ", offsets_str(r), " hold ", r.end - r.begin);
  e.bytes = data.subspan(r.begin, r.end - r.begin);
  return e;
}

/// Puts the entries in data order; the data must be indexed entirely, in order, without
/// overlap or holes.
Status order_entries(std::vector<Range> ranges, uint64_t data_size, std::string_view path,
                     SafetensorsFile& out) {
  std::stable_sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t at = 0;
  const Range* prev = nullptr;
  for (const Range& r : ranges) {
    const std::string& name = out.entries[r.entry].name;
    if (r.begin < at)
      return corrupt(path, "tensor '", name, "' (data_offsets ", offsets_str(r),
                     ") overlaps tensor '", out.entries[prev->entry].name, "' (",
                     offsets_str(*prev), ")");
    if (r.begin > at)
      return corrupt(path, "tensor '", name, "' starts at ", r.begin,
                     " but the data before it ends at ", at, " (a hole)");
    at = r.end;
    prev = &r;
  }
  if (at != data_size)
    return corrupt(path, data_size - at, " bytes after the last tensor are not part of any tensor");
  std::vector<SafetensorsEntry> ordered;
  ordered.reserve(ranges.size());
  for (const Range& r : ranges) ordered.push_back(std::move(out.entries[r.entry]));
  out.entries = std::move(ordered);
  return ok_status();
}

}  // namespace

Result<SafetensorsFile> safetensors_parse(std::span<const uint8_t> file, std::string_view path) {
  if (file.size() < 8) return corrupt(path, "too short for a header (", file.size(), " bytes)");
  const uint64_t n = header_length(file);
  if (n > kMaxHeaderBytes) return corrupt(path, "header length ", n, " is larger than the limit");
  if (n > file.size() - 8)
    return corrupt(path, "header length ", n, " runs past the end of the file (", file.size(),
                   " bytes; truncated?)");
  TIR_ASSIGN_OR_RETURN(const Json header, parse_header(file, n, path));
  const std::span<const uint8_t> data = file.subspan(8 + n);
  SafetensorsFile out;
  std::vector<Range> ranges;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (!info.is_object()) return corrupt(path, "__metadata__ is not an object of strings");
      for (const auto& [k, v] : info.items()) {
        if (!v.is_string()) return corrupt(path, "__metadata__ value '", k, "' is not a string");
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    Range r{0, 0, out.entries.size()};
    TIR_ASSIGN_OR_RETURN(SafetensorsEntry e, parse_entry(name, info, data, path, &r));
    out.entries.push_back(std::move(e));
    ranges.push_back(r);
  }
  TIR_RETURN_IF_ERROR(order_entries(std::move(ranges), data.size(), path, out));
  return out;
}

}  // namespace tir
