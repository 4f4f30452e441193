// The normalizer, pre_tokenizer, post_processor and decoder of a tokenizer.json: each type
// the reference library has is read as it reads it or refused naming the field.
#include <algorithm>

#include "tokenizer/tokenizer_json.h"

namespace tir::tokenizer {
namespace {

/// Sequences inside Sequences deeper than this are refused (real files nest one level).
constexpr int kMaxDepth = 4;

/// The items of `obj[key]`, an array the reference requires.
Result<const Json*> required_array(const JsonFields& f, const Json& obj, const std::string& where,
                                   const char* key) {
  const Json& list = JsonFields::field(obj, key);
  if (!list.is_array()) return f.corrupt(field_path(where, key), "is not an array");
  return &list;
}

/// Calls `each(item, its path)` on the items of a Sequence's `obj[key]`.
template <typename Each>
Status for_each_in_sequence(const JsonFields& f, const Json& obj, const std::string& where,
                            const char* key, int depth, Each&& each) {
  if (depth >= kMaxDepth) return f.unsupported(where, "Sequences nested too deep");
  TIR_ASSIGN_OR_RETURN(const Json* list, required_array(f, obj, where, key));
  for (size_t i = 0; i < list->size(); ++i)
    TIR_RETURN_IF_ERROR(each((*list)[i], item_path(field_path(where, key), i)));
  return ok_status();
}

Result<const std::string*> required_string(const JsonFields& f, const Json& obj,
                                           const std::string& where, const char* key) {
  const Json& v = JsonFields::field(obj, key);
  if (!v.is_string()) return f.corrupt(field_path(where, key), "is not a string");
  return v.get_ptr<const std::string*>();
}

Result<SplitBehavior> split_behavior(const JsonFields& f, const Json& obj, const std::string& where,
                                     SplitBehavior absent) {
  const Json& v = JsonFields::field(obj, "behavior");
  if (v.is_null()) return absent;
  static const std::pair<const char*, SplitBehavior> kNames[] = {
      {"Removed", SplitBehavior::kRemoved},
      {"Isolated", SplitBehavior::kIsolated},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext},
      {"Contiguous", SplitBehavior::kContiguous}};
  for (const auto& [name, behavior] : kNames)
    if (v == name) return behavior;
  return f.corrupt(field_path(where, "behavior"), v.dump(),
                   " is not Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}

Result<std::shared_ptr<const Regex>> compile(const JsonFields& f, std::string_view pattern,
                                             bool literal, const std::string& where) {
  auto regex = Regex::compile(pattern, literal);
  if (!regex.ok()) return f.unsupported(where, regex.status().message());
  return std::move(regex).value();
}

/// ByteLevel's options, the same three wherever it appears; the reference requires the first
/// two.
Result<bool> byte_level_options(const JsonFields& f, const Json& obj, const std::string& where,
                                bool* use_regex) {
  TIR_ASSIGN_OR_RETURN(const bool add_prefix_space,
                       f.flag(obj, where, "add_prefix_space", std::nullopt));
  TIR_ASSIGN_OR_RETURN(const bool trim_offsets, f.flag(obj, where, "trim_offsets", std::nullopt));
  (void)trim_offsets;  // offsets only
  TIR_ASSIGN_OR_RETURN(*use_regex, f.flag(obj, where, "use_regex", true));
  return add_prefix_space;
}

/// The regex of `obj["pattern"]`: {"Regex": ...} or, matched literally, {"String": ...}.
Result<std::shared_ptr<const Regex>> pattern_regex(const JsonFields& f, const Json& obj,
                                                   const std::string& where) {
  const Json& pattern = JsonFields::field(obj, "pattern");
  const std::string pattern_where = field_path(where, "pattern");
  const Json& regex = JsonFields::field(pattern, "Regex");
  const Json& literal = JsonFields::field(pattern, "String");
  const Json& text = regex.is_string() ? regex : literal;
  if (!pattern.is_object() || pattern.size() != 1 || !text.is_string())
    return f.corrupt(pattern_where, "is not {\"Regex\": ...} or {\"String\": ...}");
  return compile(f, text.get<std::string>(), literal.is_string(), pattern_where);
}

Status split_step(const JsonFields& f, const Json& p, const std::string& where,
                  PreTokenizer::Step* step) {
  TIR_ASSIGN_OR_RETURN(step->regex, pattern_regex(f, p, where));
  const Json& behavior = JsonFields::field(p, "behavior");
  if (behavior.is_null()) return f.corrupt(field_path(where, "behavior"), "missing");
  TIR_ASSIGN_OR_RETURN(step->behavior, split_behavior(f, p, where, SplitBehavior::kIsolated));
  TIR_ASSIGN_OR_RETURN(step->invert, f.flag(p, where, "invert", std::nullopt));
  return ok_status();
}

Status template_items(const JsonFields& f, const Json& list, const std::string& where,
                      const Json* specials, const std::string& specials_where,
                      const std::vector<bool>& used, std::vector<TemplatePiece>* out) {
  if (!list.is_array()) return f.corrupt(where, "is not an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string item = item_path(where, i);
    const Json& sequence = JsonFields::field(list[i], "Sequence");
    const Json& special = JsonFields::field(list[i], "SpecialToken");
    if (!list[i].is_object() || list[i].size() != 1 ||
        (!sequence.is_object() && !special.is_object()))
      return f.corrupt(item, "is not {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    const Json& piece = sequence.is_object() ? sequence : special;
    const Json& id = JsonFields::field(piece, "id");
    if (!JsonFields::field(piece, "type_id").is_number_unsigned())
      return f.corrupt(
          field_path(item, sequence.is_object() ? "Sequence.type_id" : "SpecialToken.type_id"),
          "is not a type id");
    if (sequence.is_object()) {
      if (id != "A" && id != "B")
        return f.corrupt(field_path(item, "Sequence.id"), "is not A or B");
      if (specials == nullptr) continue;  // "pair": checked, not applied
      if (id == "B")                      // the reference fails on every encode
        return f.unsupported(field_path(item, "Sequence.id"), "$B in the single template");
      out->push_back({.text = true});
      continue;
    }
    if (!id.is_string()) return f.corrupt(field_path(item, "SpecialToken.id"), "is not a string");
    if (specials == nullptr) continue;
    const std::string name = id.get<std::string>();
    const Json& token = JsonFields::field(*specials, name.c_str());
    const std::string token_where = specials_where + "['" + name + "']";
    if (!token.is_object())
      return f.corrupt(field_path(item, "SpecialToken.id"), "'", name, "' is not in ",
                       specials_where);
    TIR_ASSIGN_OR_RETURN(const Json* ids, required_array(f, token, token_where, "ids"));
    TemplatePiece p;
    for (size_t k = 0; k < ids->size(); ++k) {
      TIR_ASSIGN_OR_RETURN(const TokenId t, f.id((*ids)[k], item_path(token_where + ".ids", k)));
      if (static_cast<size_t>(t) >= used.size() || !used[t])
        return f.unsupported(item_path(token_where + ".ids", k), "token id ", t,
                             " is not in the vocab");
      p.ids.push_back(t);
    }
    out->push_back(std::move(p));
  }
  return ok_status();
}

}  // namespace

Status parse_normalizer(const JsonFields& f, const Json& n, const std::string& where, int depth,
                        std::vector<NormalizerStep>* out) {
  using Kind = NormalizerStep::Kind;
  if (n.is_null()) return ok_status();
  const std::string type = JsonFields::type_of(n);
  static const std::pair<const char*, Kind> kForms[] = {{"NFC", Kind::kNfc},
                                                        {"NFD", Kind::kNfd},
                                                        {"NFKC", Kind::kNfkc},
                                                        {"NFKD", Kind::kNfkd},
                                                        {"Lowercase", Kind::kLowercase}};
  for (const auto& [name, kind] : kForms) {
    if (type != name) continue;
    out->push_back({.kind = kind});
    return ok_status();
  }
  if (type == "Prepend") {
    TIR_ASSIGN_OR_RETURN(const std::string* prepend, required_string(f, n, where, "prepend"));
    out->push_back({.kind = Kind::kPrepend, .text = *prepend});
    return ok_status();
  }
  if (type == "Replace") {
    NormalizerStep step{.kind = Kind::kReplace};
    TIR_ASSIGN_OR_RETURN(const std::string* content, required_string(f, n, where, "content"));
    step.text = *content;
    TIR_ASSIGN_OR_RETURN(step.regex, pattern_regex(f, n, where));
    // The library's replace fails (an index past its alignments) on most texts then.
    if (step.regex->may_match_empty())
      return f.unsupported(field_path(where, "pattern"), "may match the empty string");
    out->push_back(std::move(step));
    return ok_status();
  }
  if (type == "Strip") {
    NormalizerStep step{.kind = Kind::kStrip};
    TIR_ASSIGN_OR_RETURN(step.left, f.flag(n, where, "strip_left", std::nullopt));
    TIR_ASSIGN_OR_RETURN(step.right, f.flag(n, where, "strip_right", std::nullopt));
    out->push_back(std::move(step));
    return ok_status();
  }
  if (type == "StripAccents") {
    out->push_back({.kind = Kind::kStripAccents});
    return ok_status();
  }
  if (type == "Sequence") {
    return for_each_in_sequence(f, n, where, "normalizers", depth,
                                [&](const Json& each, const std::string& path) {
                                  return parse_normalizer(f, each, path, depth + 1, out);
                                });
  }
  return f.unsupported(field_path(where, "type"), "normalizer '", type,
                       "' is not read (NFC, NFD, NFKC, NFKD, Lowercase, Prepend, Replace, Strip, "
                       "StripAccents and Sequence are)");
}

Status parse_pre_tokenizer(const JsonFields& f, const Json& p, const std::string& where, int depth,
                           std::vector<PreTokenizer::Step>* out, bool* byte_level_seen) {
  const std::string type = JsonFields::type_of(p);
  if (type == "Sequence") {
    return for_each_in_sequence(
        f, p, where, "pretokenizers", depth, [&](const Json& each, const std::string& path) {
          return parse_pre_tokenizer(f, each, path, depth + 1, out, byte_level_seen);
        });
  }
  if (*byte_level_seen)
    return f.unsupported(where, "pre_tokenizer '", type, "' after ByteLevel is not read");
  PreTokenizer::Step step;
  if (type == "ByteLevel") {
    *byte_level_seen = true;
    bool use_regex = true;
    TIR_ASSIGN_OR_RETURN(step.add_prefix_space, byte_level_options(f, p, where, &use_regex));
    if (use_regex) {
      TIR_ASSIGN_OR_RETURN(step.regex, compile(f, kGpt2Pattern, false, where));
    }
  } else if (type == "Split") {
    TIR_RETURN_IF_ERROR(split_step(f, p, where, &step));
  } else if (type == "Digits") {
    TIR_ASSIGN_OR_RETURN(const bool individual,
                         f.flag(p, where, "individual_digits", std::nullopt));
    TIR_ASSIGN_OR_RETURN(step.regex, compile(f, kDigitPattern, false, where));
    step.behavior = individual ? SplitBehavior::kIsolated : SplitBehavior::kContiguous;
  } else if (type == "Punctuation") {
    TIR_ASSIGN_OR_RETURN(step.regex, compile(f, kPunctuationPattern, false, where));
    TIR_ASSIGN_OR_RETURN(step.behavior, split_behavior(f, p, where, SplitBehavior::kIsolated));
  } else if (type == "WhitespaceSplit" || type == "BertPreTokenizer") {
    TIR_ASSIGN_OR_RETURN(step.regex, compile(f, kWhitespacePattern, false, where));
    step.behavior = SplitBehavior::kRemoved;
    if (type == "BertPreTokenizer") {
      out->push_back(std::move(step));
      step = {};
      TIR_ASSIGN_OR_RETURN(step.regex, compile(f, kPunctuationPattern, false, where));
    }
  } else if (type == "Whitespace") {
    TIR_ASSIGN_OR_RETURN(step.regex, compile(f, kWordsPattern, false, where));
    step.behavior = SplitBehavior::kRemoved;
    step.invert = true;
  } else {
    return f.unsupported(field_path(where, "type"), "pre_tokenizer '", type,
                         "' is not read (Split, Digits, Punctuation, WhitespaceSplit, Whitespace, "
                         "BertPreTokenizer, ByteLevel and Sequence are)");
  }
  out->push_back(std::move(step));
  return ok_status();
}

Status parse_post_processor(const JsonFields& f, const Json& p, const std::string& where, int depth,
                            const std::vector<bool>& used,
                            std::optional<std::vector<TemplatePiece>>* out) {
  if (p.is_null()) return ok_status();
  const std::string type = JsonFields::type_of(p);
  if (type == "ByteLevel") {  // offsets only
    bool use_regex = true;
    return byte_level_options(f, p, where, &use_regex).status();
  }
  if (type == "Sequence") {
    return for_each_in_sequence(f, p, where, "processors", depth,
                                [&](const Json& each, const std::string& path) {
                                  return parse_post_processor(f, each, path, depth + 1, used, out);
                                });
  }
  if (type != "TemplateProcessing")
    return f.unsupported(field_path(where, "type"), "post_processor '", type,
                         "' is not read (ByteLevel, TemplateProcessing and Sequence are)");
  // A second template would get the first one's pieces as separate sequences.
  if (out->has_value()) return f.unsupported(where, "a second TemplateProcessing is not read");
  const Json& specials = JsonFields::field(p, "special_tokens");
  if (!specials.is_object())
    return f.corrupt(field_path(where, "special_tokens"), "is not an object");
  std::vector<TemplatePiece> pieces;
  const std::string specials_where = field_path(where, "special_tokens");
  TIR_RETURN_IF_ERROR(template_items(f, JsonFields::field(p, "pair"), field_path(where, "pair"),
                                     nullptr, specials_where, used, &pieces));
  TIR_RETURN_IF_ERROR(template_items(f, JsonFields::field(p, "single"), field_path(where, "single"),
                                     &specials, specials_where, used, &pieces));
  *out = std::move(pieces);
  return ok_status();
}

Status parse_decoder(const JsonFields& f, const Json& d, const std::string& where) {
  const std::string type = JsonFields::type_of(d);
  bool use_regex = true;
  if (type == "ByteLevel") return byte_level_options(f, d, where, &use_regex).status();
  if (type == "Sequence") {
    TIR_ASSIGN_OR_RETURN(const Json* list, required_array(f, d, where, "decoders"));
    if (list->size() == 1 && JsonFields::type_of((*list)[0]) == "ByteLevel")
      return byte_level_options(f, (*list)[0], item_path(where + ".decoders", 0), &use_regex)
          .status();
  }
  return f.unsupported(where, "decoder '", type, "' is not read (ByteLevel is)");
}

}  // namespace tir::tokenizer
