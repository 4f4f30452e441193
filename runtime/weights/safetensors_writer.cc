#include "runtime/weights/safetensors_writer.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/tensor.h"
#include "runtime/weights/data_loader.h"

namespace tir {

std::string_view safetensors_dtype_name(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "BOOL";
    case DType::kUInt8:
      return "U8";
    case DType::kInt8:
      return "I8";
    case DType::kInt16:
      return "I16";
    case DType::kInt32:
      return "I32";
    case DType::kInt64:
      return "I64";
    case DType::kFloat16:
      return "F16";
    case DType::kBFloat16:
      return "BF16";
    case DType::kFloat32:
      return "F32";
    case DType::kFloat64:
      return "F64";
    case DType::kComplexFloat:
      return "C64";  // safetensors names complex64 so; it has no complex128
    case DType::kComplexDouble:
    case DType::kUndefined:
      break;
  }
  return {};
}

namespace {

// nlohmann's serializer throws on invalid UTF-8 (a name from a hostile .tir or weight file).
bool valid_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

Result<std::vector<uint8_t>> serialize(std::span<const SafetensorsEntry> entries,
                                       const std::map<std::string, std::string>& metadata,
                                       const SafetensorsProgress& progress) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::set<std::string_view> seen;
  uint64_t offset = 0;
  for (const SafetensorsEntry& e : entries) {
    auto bad = [&](const auto&... parts) {
      return make_error(StatusCode::kInvalidArgument, "safetensors: tensor '", e.name, "' ",
                        parts...);
    };
    if (e.name.empty() || e.name == "__metadata__") return bad("has a reserved or empty name");
    if (!seen.insert(e.name).second) return bad("appears twice");
    if (!valid_utf8(e.name)) return bad("has a name that is not valid UTF-8 (JSON needs it)");
    const std::string_view dt = safetensors_dtype_name(e.dtype);
    if (dt.empty()) return bad("has a dtype safetensors cannot store");
    uint64_t numel = 1;
    for (int64_t d : e.shape) {
      if (d < 0) return bad("has a negative dim in ", shape_str(e.shape));
      numel *= uint64_t(d);
    }
    if (numel * dtype_size(e.dtype) != e.bytes.size())
      return bad("is ", dtype_name(e.dtype), shape_str(e.shape), " but has ", e.bytes.size(),
                 " bytes");
    header[e.name] = {
        {"dtype", dt}, {"shape", e.shape}, {"data_offsets", {offset, offset + e.bytes.size()}}};
    offset += e.bytes.size();
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::type_error&) {  // 316: invalid UTF-8, only metadata is left
    return make_error(StatusCode::kInvalidArgument, "safetensors: metadata is not valid UTF-8");
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  std::vector<uint8_t> out(8 + text.size() + offset);
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[i] = uint8_t(n >> (8 * i));
  std::memcpy(out.data() + 8, text.data(), text.size());
  uint64_t at = 0;
  for (const SafetensorsEntry& e : entries) {
    if (!e.bytes.empty())
      std::memcpy(out.data() + 8 + text.size() + at, e.bytes.data(), e.bytes.size());
    at += e.bytes.size();
    if (progress) progress(at, offset);
  }
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> safetensors_serialize(
    std::span<const SafetensorsEntry> entries, const std::map<std::string, std::string>& metadata) {
  return serialize(entries, metadata, {});
}

Status safetensors_write(const std::string& path, std::span<const SafetensorsEntry> entries,
                         const std::map<std::string, std::string>& metadata,
                         const SafetensorsProgress& progress) {
  TIR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, serialize(entries, metadata, progress));
  Status st = write_file_atomic(path, bytes);
  if (!st.ok()) return make_error(st.code(), "writing '", path, "': ", st.message());
  return ok_status();
}

}  // namespace tir
