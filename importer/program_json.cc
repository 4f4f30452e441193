#include "importer/program_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/json_strict.h"

namespace tir::importer {
namespace {

constexpr uint64_t kMaxModelJsonBytes = uint64_t{2} << 30;
constexpr uint64_t kMaxConfigBytes = uint64_t{512} << 20;

thread_local const Json* g_blamed = nullptr;

bool find_pointer(const Json& j, const Json* target, std::string* path) {
  if (&j == target) return true;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const size_t len = path->size();
      std::string key = it.key();
      // JSON pointer escaping (RFC 6901): ~ -> ~0, / -> ~1.
      std::string esc;
      for (char c : key)
        esc += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
      *path += "/" + esc;
      if (find_pointer(it.value(), target, path)) return true;
      path->resize(len);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      const size_t len = path->size();
      *path += "/" + std::to_string(i);
      if (find_pointer(j[i], target, path)) return true;
      path->resize(len);
    }
  }
  return false;
}

}  // namespace

int json_text_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}')
      --depth;
  }
  return deepest;
}

void json_blame(const Json& j) { g_blamed = &j; }
const Json* json_blamed() { return g_blamed; }
void json_blame_clear() { g_blamed = nullptr; }

std::string json_pointer_to(const Json& root, const Json* target) {
  std::string path;
  if (!target || !find_pointer(root, target, &path)) return "";
  return path.empty() ? "/" : path;
}

std::string json_preview(const Json& j, size_t max_chars) {
  std::string text = j.dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
  if (text.size() > max_chars) text = text.substr(0, max_chars) + "...";
  return text;
}

std::string quote_nonfinite_literals(std::string_view text) {
  static constexpr std::string_view kTokens[] = {"-Infinity", "Infinity", "NaN"};
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') in_string = true;
    // Outside strings letters only start true/false/null, so these tokens are unambiguous.
    const auto token =
        std::find_if(std::begin(kTokens), std::end(kTokens),
                     [&](std::string_view t) { return text.substr(i).starts_with(t); });
    if (token == std::end(kTokens)) {
      out += c;
      continue;
    }
    out.append("\"").append(*token).append("\"");
    i += token->size() - 1;
  }
  return out;
}

Result<Json> read_json_member(const Pt2Archive& archive, std::string_view member,
                              uint64_t max_bytes) {
  TIR_ASSIGN_OR_RETURN(std::string text, archive.read(member, max_bytes));
  if (const int depth = json_text_depth(text); depth > kMaxJsonDepth)
    return make_error(StatusCode::kCorrupt, "'", archive.path(), "': member '", member, "' nests ",
                      depth, " levels deep (the limit is ", kMaxJsonDepth, ")");
  const std::string what = "'" + archive.path() + "': member '" + std::string(member) + "'";
  Result<Json> doc = parse_json_strict(text, what);
  if (doc.ok()) return doc;
  // torch <= 2.7 wrote non-finite floats as Python's bare Infinity / NaN.
  const std::string quoted = quote_nonfinite_literals(text);
  if (quoted == text) return doc;
  return parse_json_strict(quoted, what);
}

Result<Program> read_program(Pt2Archive& archive, const std::string& model_name) {
  Program p;
  p.file = archive.path();
  p.model_name = model_name;
  const bool legacy = archive.layout() == ArchiveLayout::kLegacyZip;
  const std::string member =
      legacy ? "serialized_exported_program.json" : "models/" + model_name + ".json";
  p.doc_member = member;
  TIR_ASSIGN_OR_RETURN(p.doc, read_json_member(archive, member, kMaxModelJsonBytes));
  const Json* version = json_get(p.doc, "schema_version");
  const Json* major = version ? json_get(*version, "major") : nullptr;
  if (!major || !major->is_number_integer())
    return make_error(StatusCode::kCorrupt, "'", p.file, "': '", member,
                      "' has no schema_version.major");
  const Json* minor = json_get(*version, "minor");
  if (major->get<int64_t>() < kOldestSchemaMajor || major->get<int64_t>() > kSchemaMajor)
    return make_error(
        StatusCode::kUnsupported, "'", p.file, "': schema version ", major->get<int64_t>(), ".",
        minor && minor->is_number_integer() ? std::to_string(minor->get<int64_t>())
                                            : std::string("x"),
        " is not supported (expected ", kOldestSchemaMajor, ".x to ", kSchemaMajor, ".x)");
  if (const Json* tv = json_get(p.doc, "torch_version"); tv && tv->is_string())
    p.torch_version = tv->get<std::string>();
  else
    p.torch_version = "unknown";

  const std::string weights = "data/weights/" + model_name + "_weights_config.json";
  const std::string constants = "data/constants/" + model_name + "_constants_config.json";
  p.weights_source = weights;
  p.constants_source = constants;
  // Older layouts: one torch.save of the whole state dict / constants dict.
  const std::string weights_pt =
      legacy ? "serialized_state_dict.pt" : "data/weights/" + model_name + ".pt";
  const std::string constants_pt =
      legacy ? "serialized_constants.pt" : "data/constants/" + model_name + ".pt";
  for (auto [pt, table, source, config] :
       {std::tuple(&weights_pt, &p.pickled_weights, &p.weights_source, &weights),
        std::tuple(&constants_pt, &p.pickled_constants, &p.constants_source, &constants)}) {
    if (archive.has(*config) || !archive.has(*pt)) continue;
    TIR_ASSIGN_OR_RETURN(std::vector<SavedTensor> saved, read_torch_save(archive, *pt));
    for (SavedTensor& t : saved) {
      std::string name = t.tensor.name;
      table->insert_or_assign(std::move(name), std::move(t));
    }
    *source = *pt;
  }
  if (legacy && !archive.has(weights_pt))
    return make_error(StatusCode::kCorrupt, "'", p.file, "': legacy archive has no ", weights_pt);
  p.weights_config = Json{{"config", Json::object()}};
  p.constants_config = Json{{"config", Json::object()}};
  if (archive.has(weights)) {
    TIR_ASSIGN_OR_RETURN(p.weights_config, read_json_member(archive, weights, kMaxConfigBytes));
  }
  if (archive.has(constants)) {
    TIR_ASSIGN_OR_RETURN(p.constants_config, read_json_member(archive, constants, kMaxConfigBytes));
  }
  for (const auto* cfg : {&p.weights_config, &p.constants_config}) {
    const Json* c = json_get(*cfg, "config");
    if (!c || !c->is_object())
      return make_error(StatusCode::kCorrupt, "'", p.file,
                        "': a payload config has no 'config' object");
  }
  return p;
}

Result<double> json_float(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "Infinity" || s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-Infinity" || s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "NaN" || s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  json_blame(j);
  return make_error(StatusCode::kCorrupt, "expected a float, got ", json_preview(j));
}

Result<int64_t> json_int(const Json& j) {
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX)) {
      json_blame(j);
      return make_error(StatusCode::kCorrupt, "integer ", json_preview(j), " is out of range");
    }
    return j.get<int64_t>();
  }
  json_blame(j);
  return make_error(StatusCode::kCorrupt, "expected an integer, got ", json_preview(j));
}

Result<std::pair<std::string, const Json*>> json_union(const Json& j) {
  if (!j.is_object() || j.size() != 1) {
    json_blame(j);
    return make_error(StatusCode::kCorrupt, "expected a single-key union object, got ",
                      json_preview(j));
  }
  return std::pair<std::string, const Json*>(j.begin().key(), &j.begin().value());
}

const Json* json_get(const Json& j, std::string_view key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

const Json& member_or_empty(const Json& j, std::string_view key) {
  static const Json kEmptyObject = Json::object();
  const Json* m = json_get(j, key);
  return m ? *m : kEmptyObject;
}

DType dtype_from_serde(int64_t t) {
  switch (t) {
    case 1:
      return DType::kUInt8;
    case 2:
      return DType::kInt8;
    case 3:
      return DType::kInt16;
    case 4:
      return DType::kInt32;
    case 5:
      return DType::kInt64;
    case 6:
      return DType::kFloat16;
    case 7:
      return DType::kFloat32;
    case 8:
      return DType::kFloat64;
    case 10:  // COMPLEXFLOAT; COMPLEXHALF (9) stays unsupported
      return DType::kComplexFloat;
    case 11:
      return DType::kComplexDouble;
    case 12:
      return DType::kBool;
    case 13:
      return DType::kBFloat16;
    default:
      return DType::kUndefined;
  }
}

DType dtype_from_torch_name(std::string_view n) {
  if (n.starts_with("torch.")) n.remove_prefix(6);
  if (n == "uint8") return DType::kUInt8;
  if (n == "int8") return DType::kInt8;
  if (n == "int16" || n == "short") return DType::kInt16;
  if (n == "int32" || n == "int") return DType::kInt32;
  if (n == "int64" || n == "long") return DType::kInt64;
  if (n == "float16" || n == "half") return DType::kFloat16;
  if (n == "float32" || n == "float") return DType::kFloat32;
  if (n == "float64" || n == "double") return DType::kFloat64;
  if (n == "complex64" || n == "cfloat") return DType::kComplexFloat;
  if (n == "complex128" || n == "cdouble") return DType::kComplexDouble;
  if (n == "bool") return DType::kBool;
  if (n == "bfloat16") return DType::kBFloat16;
  return DType::kUndefined;
}

}  // namespace tir::importer
