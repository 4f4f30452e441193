// ATen operator schemas (argument names, types, defaults) from the generated table
// importer/aten_schemas.inc (importer/gen_aten_schemas.py). torch.export omits arguments
// left at their defaults; the importer fills them from here so the runtime never guesses.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tir::importer {

struct AtenArg {
  std::string name;
  std::string type;  // as torch prints it: "Tensor", "Optional[Tensor]", "List[SymInt]", ...
  bool kwarg_only = false;
  bool has_default = false;
  nlohmann::json default_value;  // valid when has_default
  std::optional<int64_t> n;      // fixed list length (`int[2]`)
};

struct AtenSchema {
  std::string key;  // "aten::add.Tensor"
  std::vector<AtenArg> args;
  std::vector<std::string> returns;
};

/// The schema for `key` ("aten::<op>" or "aten::<op>.<overload>"), or nullptr if the table
/// has none. Entries are parsed on first use and cached; thread-safe.
const AtenSchema* find_aten_schema(std::string_view key);

/// Number of entries in the table.
size_t aten_schema_count();

}  // namespace tir::importer
