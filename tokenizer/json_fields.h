// Reading the fields of a tokenizer.json: lookups that never throw, and errors that name the
// file and the field's path ("field 'pre_tokenizer.pretokenizers[1].behavior'"). Fields the
// reference library requires are required here too, so that a file it refuses is refused.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "tokenizer/tokenizer.h"

namespace tir::tokenizer {

using Json = nlohmann::json;

/// `where` + "." + `key`: the path of a field inside the object at `where`.
inline std::string field_path(std::string_view where, std::string_view key) {
  return where.empty() ? std::string(key) : std::string(where) + "." + std::string(key);
}
/// `where` + "[i]".
inline std::string item_path(std::string_view where, size_t i) {
  return std::string(where) + "[" + std::to_string(i) + "]";
}

class JsonFields {
 public:
  /// `path` names the file in messages; it must outlive this object.
  explicit JsonFields(const std::string& path) : path_(path) {}

  template <typename... Parts>
  Status corrupt(std::string_view field, const Parts&... parts) const {
    return make_error(StatusCode::kCorrupt, "tokenizer file '", path_, "': field '", field,
                      "': ", parts...);
  }
  template <typename... Parts>
  Status unsupported(std::string_view field, const Parts&... parts) const {
    return make_error(StatusCode::kUnsupported, "tokenizer file '", path_, "': field '", field,
                      "': ", parts...);
  }
  const std::string& path() const { return path_; }

  /// `obj[key]`, or null when absent (or when obj is not an object).
  static const Json& field(const Json& obj, const char* key) {
    static const Json kNull;
    if (!obj.is_object()) return kNull;
    auto it = obj.find(key);
    return it == obj.end() ? kNull : *it;
  }
  static std::string type_of(const Json& obj) {
    const Json& t = field(obj, "type");
    return t.is_string() ? t.get<std::string>() : std::string();
  }
  /// `obj[key]` as a boolean: `absent` when it is missing or null, an error if `absent` is
  /// unset then (a field the reference requires).
  Result<bool> flag(const Json& obj, std::string_view where, const char* key,
                    std::optional<bool> absent) const {
    const Json& v = field(obj, key);
    if (v.is_null()) {
      if (absent) return *absent;
      return corrupt(field_path(where, key), "missing (a boolean is required)");
    }
    if (!v.is_boolean()) return corrupt(field_path(where, key), "is not a boolean");
    return v.get<bool>();
  }
  /// A token id (0 .. INT32_MAX).
  Result<TokenId> id(const Json& v, std::string_view where) const {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
      return corrupt(where, "is not a token id");
    return static_cast<TokenId>(v.get<int64_t>());
  }

 private:
  const std::string& path_;
};

}  // namespace tir::tokenizer
