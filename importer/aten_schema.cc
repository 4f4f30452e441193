#include "importer/aten_schema.h"

#include <memory>
#include <mutex>
#include <unordered_map>

namespace tir::importer {
namespace {

struct RawEntry {
  const char* key;
  const char* json;
};

constexpr RawEntry kEntries[] = {
#include "importer/aten_schemas.inc"
};

struct Table {
  std::unordered_map<std::string_view, const char*> raw;
  std::unordered_map<std::string_view, std::unique_ptr<AtenSchema>> parsed;
  std::mutex mu;
  Table() {
    raw.reserve(std::size(kEntries));
    for (const RawEntry& e : kEntries) raw.emplace(e.key, e.json);
  }
};

Table& table() {
  static Table t;
  return t;
}

std::unique_ptr<AtenSchema> parse(std::string_view key, const char* text) {
  // The table is generated and compiled in; a parse failure is a build bug, reported as
  // "no schema" rather than thrown.
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return nullptr;
  auto s = std::make_unique<AtenSchema>();
  s->key = std::string(key);
  const auto args = j.find("args");
  if (args == j.end() || !args->is_array()) return nullptr;
  for (const nlohmann::json& a : *args) {
    if (!a.is_object()) return nullptr;
    AtenArg arg;
    arg.name = a.value("name", "");
    arg.type = a.value("type", "");
    arg.kwarg_only = a.value("kwarg_only", false);
    arg.has_default = a.value("has_default", false);
    if (auto d = a.find("default"); d != a.end()) arg.default_value = *d;
    if (auto n = a.find("N"); n != a.end() && n->is_number_integer()) arg.n = n->get<int64_t>();
    s->args.push_back(std::move(arg));
  }
  if (auto r = j.find("returns"); r != j.end() && r->is_array())
    for (const nlohmann::json& t : *r)
      if (t.is_string()) s->returns.push_back(t.get<std::string>());
  return s;
}

}  // namespace

const AtenSchema* find_aten_schema(std::string_view key) {
  Table& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  if (auto it = t.parsed.find(key); it != t.parsed.end()) return it->second.get();
  auto raw = t.raw.find(key);
  if (raw == t.raw.end()) return nullptr;
  auto& slot = t.parsed[raw->first];
  slot = parse(raw->first, raw->second);
  return slot.get();
}

size_t aten_schema_count() { return std::size(kEntries); }

}  // namespace tir::importer
