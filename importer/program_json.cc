#include "importer/program_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace tir::importer {
namespace {

constexpr uint64_t kMaxModelJsonBytes = uint64_t{2} << 30;
constexpr uint64_t kMaxConfigBytes = uint64_t{512} << 20;

}  // namespace

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
  Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    // torch <= 2.7 wrote non-finite floats as Python's bare Infinity / NaN.
    Json quoted = Json::parse(quote_nonfinite_literals(text), nullptr, false);
    if (!quoted.is_discarded()) return quoted;
    // Parse again with exceptions only to get the position in the message.
    try {
      (void)Json::parse(text);
    } catch (const Json::exception& e) {
      return make_error(StatusCode::kCorrupt, "'", archive.path(), "': member '", member,
                        "' is not valid JSON (", e.what(), ")");
    }
    return make_error(StatusCode::kCorrupt, "'", archive.path(), "': member '", member,
                      "' is not valid JSON");
  }
  return doc;
}

Result<Program> read_program(Pt2Archive& archive, const std::string& model_name) {
  Program p;
  p.file = archive.path();
  p.model_name = model_name;
  const bool legacy = archive.layout() == ArchiveLayout::kLegacyZip;
  const std::string member =
      legacy ? "serialized_exported_program.json" : "models/" + model_name + ".json";
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
  return make_error(StatusCode::kCorrupt, "expected a float, got ", j.dump());
}

Result<int64_t> json_int(const Json& j) {
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t(INT64_MAX))
      return make_error(StatusCode::kCorrupt, "integer ", j.dump(), " is out of range");
    return j.get<int64_t>();
  }
  return make_error(StatusCode::kCorrupt, "expected an integer, got ", j.dump());
}

Result<std::pair<std::string, const Json*>> json_union(const Json& j) {
  if (!j.is_object() || j.size() != 1)
    return make_error(StatusCode::kCorrupt, "expected a single-key union object, got ",
                      j.dump().substr(0, 120));
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
  if (n == "bool") return DType::kBool;
  if (n == "bfloat16") return DType::kBFloat16;
  return DType::kUndefined;
}

}  // namespace tir::importer
