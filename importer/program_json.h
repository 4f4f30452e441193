// Model JSON of a PT2 archive (`models/<name>.json`, schema 8.x, see pt2-format.md §3) and
// the payload configs beside it. Parsing uses nlohmann::json; every exception is caught at
// this edge and turned into a kCorrupt Status naming the member.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/dtype.h"
#include "core/status.h"
#include "importer/pt2_archive.h"
#include "importer/torch_save.h"

namespace tir::importer {

using Json = nlohmann::json;

inline constexpr int kSchemaMajor = 8;
/// torch 2.3 writes schema 5.x and 2.5 7.x; their JSON reads the same way for the ops we
/// import (5.x lacks torch_version, and its nodes' inputs lack "kind").
inline constexpr int kOldestSchemaMajor = 5;

/// Deepest nesting of arrays and objects read_json_member accepts. torch's programs nest
/// about 20 levels (a cond branch adds about 8); deeper input is refused before parsing, so
/// no recursive walk (dump, destructor) can overflow the stack.
inline constexpr int kMaxJsonDepth = 256;

/// The nesting depth of `text`'s arrays and objects (brackets inside strings ignored).
int json_text_depth(std::string_view text);

/// Records `j` as the field an error is about; the importer's edge (build_method) turns it
/// into a JSON path. json_int, json_float and json_union blame the value they reject.
/// Per thread; cleared by json_blame_clear.
void json_blame(const Json& j);
const Json* json_blamed();
void json_blame_clear();
/// The JSON pointer ("/graph_module/graph/nodes/3/inputs/0") of `target` inside `root`,
/// found by address, or "" if `target` is not in `root`.
std::string json_pointer_to(const Json& root, const Json* target);
/// At most `max_chars` of `j`'s JSON text, for messages (control characters escaped).
std::string json_preview(const Json& j, size_t max_chars = 80);

/// `text` with the bare Infinity / -Infinity / NaN tokens outside strings quoted ("Infinity"),
/// as json_float reads them: Python's json writes non-finite floats bare, and so did torch's
/// serializer before 2.8 (e.g. the -inf of a masked_fill in the core-ATen IR).
std::string quote_nonfinite_literals(std::string_view text);

/// Parses a JSON member (at most `max_bytes`); errors name the archive and member. Members
/// that are not strict JSON only by bare non-finite floats are read through
/// quote_nonfinite_literals.
Result<Json> read_json_member(const Pt2Archive& archive, std::string_view member,
                              uint64_t max_bytes);

/// The parsed program of one model in an archive.
struct Program {
  std::string file;        // the archive path, for messages
  std::string model_name;  // "model"
  std::string doc_member;  // "models/model.json" (or the legacy layout's name), for messages
  Json doc;                // models/<name>.json
  Json weights_config;     // data/weights/<name>_weights_config.json ({"config":{}} if absent)
  Json constants_config;   // data/constants/<name>_constants_config.json
  /// Pickled weights/constants (torch <= 2.8: data/weights/<name>.pt, data/constants/
  /// <name>.pt or the legacy serialized_state_dict.pt / serialized_constants.pt), by FQN.
  std::unordered_map<std::string, SavedTensor> pickled_weights, pickled_constants;
  std::string weights_source = "data/weights/model_weights_config.json";  // for messages
  std::string constants_source = "data/constants/model_constants_config.json";
  std::string torch_version;
};

/// Reads the model JSON and the weights/constants tables of `model_name`, checks
/// schema_version.major == 8. Mounts the pickled state dicts of older layouts.
Result<Program> read_program(Pt2Archive& archive, const std::string& model_name);

/// A float field: a number, or "Infinity" / "-Infinity" / "NaN".
Result<double> json_float(const Json& j);
/// A 64-bit integer field (rejects floats, bools, out-of-range numbers).
Result<int64_t> json_int(const Json& j);
/// A union: a single-key object {"as_x": value}. Returns the key and value.
Result<std::pair<std::string, const Json*>> json_union(const Json& j);
/// The member of object `j` named `key`, or nullptr (also when `j` is not an object).
const Json* json_get(const Json& j, std::string_view key);
/// The member of object `j` named `key`, or an empty object.
const Json& member_or_empty(const Json& j, std::string_view key);

/// serde ScalarType (pt2-format.md §3.3) -> tir DType; kUndefined if unsupported.
DType dtype_from_serde(int64_t scalar_type);
/// "torch.float32" (str() of a torch dtype, as in schema defaults) -> DType.
DType dtype_from_torch_name(std::string_view name);

}  // namespace tir::importer
