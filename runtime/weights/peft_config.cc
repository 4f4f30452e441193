#include "runtime/weights/peft_config.h"

#include <charconv>
#include <cmath>

#include "core/json_strict.h"
#include "runtime/weights/data_loader.h"

namespace tir {
namespace {

/// Ordered: rank_pattern and alpha_pattern are searched in the order the file gives.
using OrderedJson = nlohmann::ordered_json;
using Anchor = PeftRegex::Anchor;

/// The options that change the forward pass in ways tir does not implement.
constexpr const char* kUnsupported[] = {"use_dora",
                                        "lora_bias",
                                        "layer_replication",
                                        "target_parameters",
                                        "trainable_token_indices",
                                        "use_qalora",
                                        "alora_invocation_tokens",
                                        "arrow_config",
                                        "kasa_config",
                                        "monteclora_config",
                                        "velora_config",
                                        "use_bdlora",
                                        "megatron_config",
                                        "ensure_weight_tying"};

/// A field that is set (not null, false, 0 or empty).
bool is_set(const OrderedJson& field) {
  if (field.is_null()) return false;
  if (field.is_boolean()) return field.get<bool>();
  if (field.is_number()) return field.get<double>() != 0;
  return !field.empty();
}

bool is_positive_int(const OrderedJson& v) {
  return (v.is_number_unsigned() || v.is_number_integer()) && v.get<int64_t>() > 0;
}

class Reader {
 public:
  Reader(const std::string& file, const OrderedJson& root) : file_(file), root_(root) {}

  template <typename... Parts>
  Status error(StatusCode code, const Parts&... parts) const {
    return make_error(code, "adapter config '", file_, "': ", parts...);
  }
  template <typename... Parts>
  Status invalid(const char* field, const Parts&... parts) const {
    return error(StatusCode::kInvalidArgument, field, " ", parts...);
  }

  /// The field, or null when absent.
  const OrderedJson& get(const char* field) const {
    static const OrderedJson kNull;
    const auto it = root_.find(field);
    return it == root_.end() ? kNull : *it;
  }

  Result<PeftRegex> regex(const std::string& pattern, Anchor anchor, const char* field) const {
    return PeftRegex::compile(pattern, anchor, "adapter config '" + file_ + "': " + field);
  }

  /// A list of strings (null: empty).
  Result<std::vector<std::string>> strings(const char* field) const {
    const OrderedJson& v = get(field);
    std::vector<std::string> out;
    if (v.is_null()) return out;
    if (!v.is_array()) return invalid(field, "is not a list of strings");
    for (const OrderedJson& s : v) {
      if (!s.is_string()) return invalid(field, "holds ", s.dump(), ", not a string");
      out.push_back(s.get<std::string>());
    }
    return out;
  }

  /// A list of module names, or one regular expression.
  Result<PeftModuleSet> module_set(const char* field) const {
    PeftModuleSet set;
    if (const OrderedJson& v = get(field); v.is_string()) {
      TIR_ASSIGN_OR_RETURN(PeftRegex r, regex(v.get<std::string>(), Anchor::kFull, field));
      set.regex = std::move(r);
      return set;
    }
    TIR_ASSIGN_OR_RETURN(set.names, strings(field));
    return set;
  }

  Result<bool> flag(const char* field) const {
    const OrderedJson& v = get(field);
    if (!v.is_null() && !v.is_boolean()) return invalid(field, "is not true or false");
    return v.is_boolean() && v.get<bool>();
  }

  /// rank_pattern or alpha_pattern: key -> value, in file order.
  template <typename T>
  Result<std::vector<std::pair<PeftRegex, T>>> pattern(const char* field, bool ranks) const {
    std::vector<std::pair<PeftRegex, T>> out;
    const OrderedJson& v = get(field);
    if (v.is_null()) return out;
    if (!v.is_object()) return invalid(field, "is not an object");
    for (const auto& [key, value] : v.items()) {
      if (ranks ? !is_positive_int(value) : !value.is_number())
        return invalid(field, "'", key, "' is ", value.dump(), ", not a ",
                       ranks ? "positive integer" : "number");
      TIR_ASSIGN_OR_RETURN(PeftRegex r, regex("(.*\\.)?(" + key + ")", Anchor::kFull, field));
      out.emplace_back(std::move(r), value.template get<T>());
    }
    return out;
  }

  Status read_layers(PeftLoraConfig* c) const {
    const OrderedJson& layers = get("layers_to_transform");
    const OrderedJson& patterns = get("layers_pattern");
    const bool string_target = get("target_modules").is_string();
    if (string_target && (!layers.is_null() || !patterns.is_null()))
      return invalid(layers.is_null() ? "layers_pattern" : "layers_to_transform",
                     "cannot be used when target_modules is a string (PEFT refuses it too)");
    if (is_set(patterns) && layers.is_null())
      return invalid("layers_pattern", "is given without layers_to_transform");
    if (layers.is_number_integer())
      c->layers.push_back(layers.get<int64_t>());
    else if (layers.is_array())
      for (const OrderedJson& i : layers) {
        if (!i.is_number_integer()) return invalid("layers_to_transform", "holds ", i.dump());
        c->layers.push_back(i.get<int64_t>());
      }
    else if (!layers.is_null())
      return invalid("layers_to_transform", "is not an integer or a list of integers");
    std::vector<std::string> names;
    if (patterns.is_string()) {
      if (!patterns.get<std::string>().empty()) names.push_back(patterns.get<std::string>());
    } else {
      TIR_ASSIGN_OR_RETURN(names, strings("layers_pattern"));
    }
    if (names.empty()) names.push_back("");
    for (const std::string& p : names) {
      // The first numbered segment after the pattern (or after any segment) is the index.
      const std::string head = p.empty() ? ".*?\\.[^.]*" : "(?:^|.*?\\.)" + p;
      TIR_ASSIGN_OR_RETURN(PeftRegex r,
                           regex(head + "\\.(?P<idx>\\d+)\\.", Anchor::kStart, "layers_pattern"));
      c->layer_index_patterns.push_back(std::move(r));
    }
    return ok_status();
  }

  Status read_targets(PeftLoraConfig* c) const {
    const OrderedJson& t = get("target_modules");
    if (t.is_null())
      return invalid("target_modules", "is missing (PEFT would choose modules by model class)");
    if (t == "all-linear")
      return error(StatusCode::kUnsupported,
                   "target_modules 'all-linear' is not supported (list the modules)");
    TIR_ASSIGN_OR_RETURN(c->target, module_set("target_modules"));
    if (c->target.empty()) return invalid("target_modules", "is empty");
    TIR_ASSIGN_OR_RETURN(c->exclude, module_set("exclude_modules"));
    TIR_ASSIGN_OR_RETURN(c->modules_to_save, strings("modules_to_save"));
    for (const std::string& m : c->modules_to_save) {
      TIR_ASSIGN_OR_RETURN(PeftRegex r,
                           regex("(^|.*\\.)" + m + "($|\\..*)", Anchor::kStart, "modules_to_save"));
      c->saved_exclusions.push_back(std::move(r));
    }
    return read_layers(c);
  }

  Status read(PeftLoraConfig* c) const {
    if (const OrderedJson& type = get("peft_type"); type != "LORA")
      return error(StatusCode::kUnsupported, "peft_type ",
                   type.is_null() ? std::string("missing") : type.dump(),
                   " is not supported (only LORA)");
    for (const char* field : kUnsupported)
      if (is_set(get(field))) return error(StatusCode::kUnsupported, field, " is not supported");
    if (!is_positive_int(get("r"))) return invalid("r", "is not a positive integer");
    c->r = get("r").get<int64_t>();
    if (!get("lora_alpha").is_number()) return invalid("lora_alpha", "is missing or not a number");
    c->alpha = get("lora_alpha").get<double>();
    TIR_ASSIGN_OR_RETURN(c->rslora, flag("use_rslora"));
    TIR_ASSIGN_OR_RETURN(const bool fan_in_fan_out, flag("fan_in_fan_out"));
    (void)fan_in_fan_out;  // checked, no effect (see the header)
    if (const OrderedJson& b = get("bias"); !b.is_null()) {
      if (b != "none" && b != "all" && b != "lora_only")
        return invalid("bias", b.dump(), " is not \"none\", \"all\" or \"lora_only\"");
      c->bias = b.get<std::string>();
    }
    TIR_ASSIGN_OR_RETURN(c->rank_pattern, pattern<int64_t>("rank_pattern", true));
    TIR_ASSIGN_OR_RETURN(c->alpha_pattern, pattern<double>("alpha_pattern", false));
    return read_targets(c);
  }

 private:
  const std::string& file_;
  const OrderedJson& root_;
};

/// Whether `key` is in `set`: a name equal to it or a "." suffix of it, or a full regex match.
Result<bool> in_set(const PeftModuleSet& set, const std::string& key, bool* exact = nullptr) {
  if (set.regex) return set.regex->match(key);
  for (const std::string& n : set.names) {
    if (key == n) {
      if (exact) *exact = true;
      return true;
    }
  }
  for (const std::string& n : set.names)
    if (key.ends_with("." + n)) return true;
  return false;
}

/// The layer index PEFT reads from `key`, if any.
Result<std::optional<int64_t>> layer_index(const PeftLoraConfig& c, const std::string& key) {
  for (const PeftRegex& r : c.layer_index_patterns) {
    std::string idx;
    TIR_ASSIGN_OR_RETURN(const bool hit, r.match(key, &idx));
    if (!hit) continue;
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), value);
    if (ec != std::errc() || end != idx.data() + idx.size())  // too large for any layer
      return std::optional<int64_t>();
    return std::optional<int64_t>(value);
  }
  return std::optional<int64_t>();
}

/// The value of the first pattern matching `key`, else `fallback`.
template <typename T>
Result<T> pattern_value(const std::vector<std::pair<PeftRegex, T>>& patterns,
                        const std::string& key, T fallback) {
  for (const auto& [regex, value] : patterns) {
    TIR_ASSIGN_OR_RETURN(const bool hit, regex.match(key));
    if (hit) return value;
  }
  return fallback;
}

/// Why PEFT leaves `key` out; empty when it adapts it.
Result<std::string> left_out_by(const PeftLoraConfig& c, const std::string& key) {
  TIR_ASSIGN_OR_RETURN(const bool excluded, in_set(c.exclude, key));
  if (excluded) return std::string("exclude_modules");
  for (const PeftRegex& r : c.saved_exclusions) {
    TIR_ASSIGN_OR_RETURN(const bool saved, r.match(key));
    if (saved) return std::string("modules_to_save");
  }
  bool exact = false;
  TIR_ASSIGN_OR_RETURN(const bool targeted, in_set(c.target, key, &exact));
  if (!targeted) return std::string("target_modules");
  if (c.target.regex || exact || c.layers.empty()) return std::string();
  TIR_ASSIGN_OR_RETURN(const std::optional<int64_t> index, layer_index(c, key));
  if (!index) return std::string("layers_pattern");
  if (std::find(c.layers.begin(), c.layers.end(), *index) == c.layers.end())
    return std::string("layers_to_transform");
  return std::string();
}

}  // namespace

Result<PeftLoraConfig> peft_config_read(const std::string& file) {
  TIR_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file(file));
  TIR_ASSIGN_OR_RETURN(
      const OrderedJson root,
      parse_json_strict<OrderedJson>(
          std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
          "adapter config '" + file + "'"));
  const Reader reader(file, root);
  if (!root.is_object()) return reader.error(StatusCode::kInvalidArgument, "is not a JSON object");
  PeftLoraConfig c;
  c.file = file;
  TIR_RETURN_IF_ERROR(reader.read(&c));
  return c;
}

Result<PeftTarget> peft_config_target(const PeftLoraConfig& c, const std::string& key) {
  PeftTarget t;
  TIR_ASSIGN_OR_RETURN(t.why_not, left_out_by(c, key));
  if (!t.why_not.empty()) return t;
  t.adapted = true;
  TIR_ASSIGN_OR_RETURN(t.rank, pattern_value(c.rank_pattern, key, c.r));
  TIR_ASSIGN_OR_RETURN(const double alpha, pattern_value(c.alpha_pattern, key, c.alpha));
  const double r = double(t.rank);
  t.scale = alpha / (c.rslora ? std::sqrt(r) : r);
  if (!std::isfinite(t.scale) || std::fabs(t.scale) > kMaxLoraScale)
    return make_error(StatusCode::kInvalidArgument, "adapter config '", c.file, "': module '", key,
                      "' has scale ", alpha, (c.rslora ? " / sqrt(" : " / "), t.rank,
                      (c.rslora ? ")" : ""), " = ", t.scale,
                      " (lora_alpha or alpha_pattern; the limit is ", kMaxLoraScale, ")");
  return t;
}

bool peft_config_saves(const PeftLoraConfig& c, const std::string& key) {
  for (const std::string& m : c.modules_to_save)
    if (key.ends_with(m)) return true;
  return false;
}

}  // namespace tir
