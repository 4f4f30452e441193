#include "tokenizer/tokenizer_json.h"

#include <nlohmann/json.hpp>

#include "core/json_strict.h"
#include "tokenizer/byte_level.h"

namespace tir::tokenizer {
namespace {

using Json = nlohmann::json;

/// Ids this far above the number of entries are refused, so that a small hostile file cannot
/// make the id tables huge (real vocabularies are dense).
constexpr size_t kMaxIdSlack = 1024;
/// Sequences inside Sequences deeper than this are refused (real files nest one level).
constexpr int kMaxDepth = 4;

class Parser {
 public:
  explicit Parser(const std::string& path) : path_(path) {}

  template <typename... Parts>
  Status corrupt(const Parts&... parts) const {
    return make_error(StatusCode::kCorrupt, "tokenizer file '", path_, "': ", parts...);
  }
  template <typename... Parts>
  Status unsupported(const Parts&... parts) const {
    return make_error(StatusCode::kUnsupported, "tokenizer file '", path_, "': ", parts...);
  }

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
  Result<bool> flag(const Json& obj, const char* key, std::string_view where) const {
    const Json& v = field(obj, key);
    if (v.is_null()) return false;
    if (!v.is_boolean()) return corrupt(where, ".", key, " is not a boolean");
    return v.get<bool>();
  }
  Result<TokenId> id(const Json& v, std::string_view where) const {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX)
      return corrupt(where, " is not a token id");
    return static_cast<TokenId>(v.get<int64_t>());
  }

  Status model(const Json& m, BpeConfig* c);
  Status merges(const Json& list, BpeConfig* c);
  Status added_tokens(const Json& list, BpeConfig* c);
  Status normalizer(const Json& n, BpeConfig* c);
  Status pre_tokenizer(const Json& p, BpeConfig* c);
  Status post_processor(const Json& p, BpeConfig* c);
  Status decoder(const Json& d);
  bool byte_level_seen() const { return byte_level_seen_; }

 private:
  Status set_token(BpeConfig* c, TokenId id, const std::string& spelling) {
    if (static_cast<size_t>(id) >= c->tokens.size()) return corrupt("token id ", id, " too large");
    c->tokens[id] = spelling;
    c->used[id] = true;
    return ok_status();
  }
  const std::string& path_;
  int depth_ = 0;  // of nested Sequences, which are parsed recursively
  bool byte_level_seen_ = false;
};

Status Parser::model(const Json& m, BpeConfig* c) {
  if (!m.is_object()) return corrupt("no model object");
  const std::string type = type_of(m);
  if (!type.empty() && type != "BPE")
    return unsupported("model.type '", type, "' (only byte-level BPE is read)");
  const Json& vocab = field(m, "vocab");
  if (!vocab.is_object()) return corrupt("model.vocab is not an object");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const Json& v = field(m, key);
    if (!v.is_null() && !(v.is_string() && v.get<std::string>().empty()))
      return unsupported("model.", key, " (not used by byte-level BPE)");
  }
  if (!field(m, "dropout").is_null()) return unsupported("model.dropout (BPE dropout)");
  TIR_ASSIGN_OR_RETURN(const bool byte_fallback, flag(m, "byte_fallback", "model"));
  if (byte_fallback) return unsupported("model.byte_fallback (not byte-level BPE)");
  TIR_ASSIGN_OR_RETURN(c->model.ignore_merges, flag(m, "ignore_merges", "model"));
  TIR_ASSIGN_OR_RETURN(c->model.fuse_unk, flag(m, "fuse_unk", "model"));

  std::vector<std::pair<std::string, TokenId>> entries;
  entries.reserve(vocab.size());
  for (const auto& [spelling, value] : vocab.items()) {
    TIR_ASSIGN_OR_RETURN(const TokenId i, id(value, "model.vocab['" + spelling + "']"));
    entries.emplace_back(spelling, i);
  }
  size_t limit = entries.size() + kMaxIdSlack;
  for (const auto& [spelling, i] : entries)
    if (static_cast<size_t>(i) >= limit) return corrupt("token id ", i, " too large");
  c->tokens.resize(limit);
  c->used.resize(limit);
  for (const auto& [spelling, i] : entries) {
    TIR_RETURN_IF_ERROR(set_token(c, i, spelling));
    c->spelling_to_id[spelling] = i;
    bool mapped = false;
    std::string bytes = byte_level_decode(spelling, &mapped);
    if (mapped) c->bytes_to_id.emplace(std::move(bytes), i);
  }
  const Json& unk = field(m, "unk_token");
  if (unk.is_string()) {
    auto it = c->spelling_to_id.find(unk.get<std::string>());
    if (it == c->spelling_to_id.end()) return corrupt("model.unk_token is not in the vocab");
    c->model.unk_id = it->second;
  } else if (!unk.is_null()) {
    return corrupt("model.unk_token is not a string");
  }
  return merges(field(m, "merges"), c);
}

Status Parser::merges(const Json& list, BpeConfig* c) {
  if (list.is_null()) return ok_status();
  if (!list.is_array()) return corrupt("model.merges is not an array");
  c->merges.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& m = list[i];
    std::string left, right;
    if (m.is_string()) {  // "a b"
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
        return corrupt("model.merges[", i, "] is not two tokens");
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      left = m[0].get<std::string>();
      right = m[1].get<std::string>();
    } else {
      return corrupt("model.merges[", i, "] is neither \"a b\" nor [a, b]");
    }
    auto l = c->spelling_to_id.find(left), r = c->spelling_to_id.find(right),
         merged = c->spelling_to_id.find(left + right);
    if (l == c->spelling_to_id.end() || r == c->spelling_to_id.end() ||
        merged == c->spelling_to_id.end())
      return corrupt("model.merges[", i, "] ('", left, "', '", right, "') is not in the vocab");
    c->merges.push_back({l->second, r->second, merged->second});
  }
  return ok_status();
}

Status Parser::added_tokens(const Json& list, BpeConfig* c) {
  if (list.is_null()) return ok_status();
  if (!list.is_array()) return corrupt("added_tokens is not an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& t = list[i];
    const std::string where = "added_tokens[" + std::to_string(i) + "]";
    AddedToken token;
    TIR_ASSIGN_OR_RETURN(token.id, id(field(t, "id"), where + ".id"));
    const Json& content = field(t, "content");
    if (!content.is_string() || content.get<std::string>().empty())
      return corrupt(where, ".content is not a non-empty string");
    token.content = content.get<std::string>();
    TIR_ASSIGN_OR_RETURN(token.special, flag(t, "special", where));
    TIR_ASSIGN_OR_RETURN(token.normalized, flag(t, "normalized", where));
    TIR_ASSIGN_OR_RETURN(token.lstrip, flag(t, "lstrip", where));
    TIR_ASSIGN_OR_RETURN(token.rstrip, flag(t, "rstrip", where));
    TIR_ASSIGN_OR_RETURN(const bool single_word, flag(t, "single_word", where));
    if (single_word) return unsupported(where, ".single_word");
    if (static_cast<size_t>(token.id) >= c->tokens.size()) {
      if (static_cast<size_t>(token.id) >= c->tokens.size() + list.size() + kMaxIdSlack)
        return corrupt(where, ".id ", token.id, " too large");
      c->tokens.resize(token.id + 1);
      c->used.resize(token.id + 1);
    }
    TIR_RETURN_IF_ERROR(set_token(c, token.id, token.content));
    c->spelling_to_id[token.content] = token.id;
    c->added.push_back(std::move(token));
  }
  return ok_status();
}

Status Parser::normalizer(const Json& n, BpeConfig* c) {
  if (n.is_null()) return ok_status();
  const std::string type = type_of(n);
  if (type == "NFC") {
    c->nfc = true;
    return ok_status();
  }
  if (type == "Sequence" && field(n, "normalizers").is_array()) {
    if (++depth_ > kMaxDepth) return unsupported("normalizer Sequences nested too deep");
    for (const Json& each : field(n, "normalizers")) TIR_RETURN_IF_ERROR(normalizer(each, c));
    --depth_;
    return ok_status();
  }
  return unsupported("normalizer '", type, "' (null and NFC are read)");
}

Status Parser::pre_tokenizer(const Json& p, BpeConfig* c) {
  const std::string type = type_of(p);
  if (type == "Sequence" && field(p, "pretokenizers").is_array()) {
    if (++depth_ > kMaxDepth) return unsupported("pre_tokenizer Sequences nested too deep");
    for (const Json& each : field(p, "pretokenizers")) TIR_RETURN_IF_ERROR(pre_tokenizer(each, c));
    --depth_;
    return ok_status();
  }
  if (byte_level_seen_) return unsupported("pre_tokenizer: ", type, " after ByteLevel");
  PreTokenizer::Step step;
  if (type == "ByteLevel") {
    byte_level_seen_ = true;
    TIR_ASSIGN_OR_RETURN(step.add_prefix_space, flag(p, "add_prefix_space", "pre_tokenizer"));
    const Json& use_regex = field(p, "use_regex");
    if (use_regex.is_null() || (use_regex.is_boolean() && use_regex.get<bool>())) {
      TIR_ASSIGN_OR_RETURN(step.regex, Regex::compile(kGpt2Pattern, false));
    }
  } else if (type == "Split") {
    const Json& pattern = field(p, "pattern");
    const Json& regex = field(pattern, "Regex");
    const Json& literal = field(pattern, "String");
    const Json& behavior = field(p, "behavior");
    TIR_ASSIGN_OR_RETURN(const bool invert, flag(p, "invert", "pre_tokenizer.Split"));
    if (invert) return unsupported("pre_tokenizer.Split.invert");
    if (!behavior.is_string() ||
        (behavior.get<std::string>() != "Isolated" && behavior.get<std::string>() != "Removed"))
      return unsupported("pre_tokenizer.Split.behavior (Isolated and Removed are read)");
    step.keep_gaps = behavior.get<std::string>() == "Isolated";
    const Json& text = regex.is_string() ? regex : literal;
    if (!text.is_string()) return corrupt("pre_tokenizer.Split.pattern is not Regex or String");
    auto compiled = Regex::compile(text.get<std::string>(), literal.is_string());
    if (!compiled.ok()) return compiled.status().with_context(path_ + ": pre_tokenizer.Split");
    step.regex = std::move(compiled).value();
  } else {
    return unsupported("pre_tokenizer '", type, "' (Split, ByteLevel and Sequence are read)");
  }
  c->pre_tokenizer.push_back(std::move(step));
  return ok_status();
}

Status Parser::post_processor(const Json& p, BpeConfig* c) {
  if (p.is_null()) return ok_status();
  const std::string type = type_of(p);
  if (type == "ByteLevel") return ok_status();  // offsets only
  if (type == "Sequence" && field(p, "processors").is_array()) {
    if (++depth_ > kMaxDepth) return unsupported("post_processor Sequences nested too deep");
    for (const Json& each : field(p, "processors")) TIR_RETURN_IF_ERROR(post_processor(each, c));
    --depth_;
    return ok_status();
  }
  if (type != "TemplateProcessing")
    return unsupported("post_processor '", type, "' (ByteLevel and TemplateProcessing are read)");
  const Json& single = field(p, "single");
  const Json& specials = field(p, "special_tokens");
  if (!single.is_array()) return corrupt("post_processor.single is not an array");
  bool seen_text = false;
  for (const Json& item : single) {
    if (field(item, "Sequence").is_object()) {
      if (seen_text || field(field(item, "Sequence"), "id") != "A")
        return unsupported("post_processor.single other than one $A");
      seen_text = true;
      continue;
    }
    const Json& name = field(field(item, "SpecialToken"), "id");
    if (!name.is_string()) return corrupt("post_processor.single item is not a token or $A");
    const Json& ids = field(field(specials, name.get<std::string>().c_str()), "ids");
    if (!ids.is_array())
      return corrupt("post_processor.special_tokens has no ids for '", name.get<std::string>(),
                     "'");
    for (const Json& each : ids) {
      TIR_ASSIGN_OR_RETURN(const TokenId i, id(each, "post_processor.special_tokens id"));
      if (static_cast<size_t>(i) >= c->used.size() || !c->used[i])
        return corrupt("post_processor token id ", i, " is not in the vocab");
      (seen_text ? c->suffix : c->prefix).push_back(i);
    }
  }
  return ok_status();
}

Status Parser::decoder(const Json& d) {
  const std::string type = type_of(d);
  if (type == "ByteLevel") return ok_status();
  if (type == "Sequence" && field(d, "decoders").is_array() && field(d, "decoders").size() == 1 &&
      type_of(field(d, "decoders")[0]) == "ByteLevel")
    return ok_status();
  return unsupported("decoder '", type, "' (ByteLevel is read)");
}

}  // namespace

Result<BpeConfig> parse_tokenizer_json(std::string_view text, const std::string& path) {
  Parser parser(path);
  TIR_ASSIGN_OR_RETURN(const Json root, parse_json_strict(text, "tokenizer file '" + path + "'"));
  if (root.is_discarded() || !root.is_object()) return parser.corrupt("not a JSON object");
  BpeConfig c;
  TIR_RETURN_IF_ERROR(parser.model(Parser::field(root, "model"), &c));
  TIR_RETURN_IF_ERROR(parser.added_tokens(Parser::field(root, "added_tokens"), &c));
  TIR_RETURN_IF_ERROR(parser.normalizer(Parser::field(root, "normalizer"), &c));
  TIR_RETURN_IF_ERROR(parser.pre_tokenizer(Parser::field(root, "pre_tokenizer"), &c));
  if (!parser.byte_level_seen())
    return parser.unsupported("pre_tokenizer has no ByteLevel (only byte-level BPE is read)");
  TIR_RETURN_IF_ERROR(parser.post_processor(Parser::field(root, "post_processor"), &c));
  TIR_RETURN_IF_ERROR(parser.decoder(Parser::field(root, "decoder")));
  // The tables were sized with slack for ids above the count; keep them to the largest id.
  size_t size = c.used.size();
  while (size > 0 && !c.used[size - 1]) --size;
  c.tokens.resize(size);
  c.used.resize(size);
  return c;
}

Result<SpecialTokenNames> parse_tokenizer_config(std::string_view text, const std::string& path) {
  TIR_ASSIGN_OR_RETURN(const Json root, parse_json_strict(text, "tokenizer config '" + path + "'"));
  if (root.is_discarded() || !root.is_object())
    return make_error(StatusCode::kCorrupt, "tokenizer config '", path, "': not a JSON object");
  SpecialTokenNames names;
  auto name = [&](const char* key) -> std::optional<std::string> {
    const Json& v = Parser::field(root, key);
    const Json& content = v.is_object() ? Parser::field(v, "content") : v;
    if (content.is_string()) return content.get<std::string>();
    return std::nullopt;
  };
  names.bos = name("bos_token");
  names.eos = name("eos_token");
  return names;
}

}  // namespace tir::tokenizer
