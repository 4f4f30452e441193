#include "tokenizer/tokenizer_json.h"

#include <cstdio>
#include <set>

#include "core/json_strict.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/utf8.h"

namespace tir::tokenizer {
namespace {

/// Ids this far above the number of entries are refused, so that a small hostile file cannot
/// make the id tables huge (real vocabularies are dense).
constexpr size_t kMaxIdSlack = 1024;

class Parser {
 public:
  explicit Parser(const std::string& path) : f_(path) {}

  Status root(const Json& root, BpeConfig* c);

 private:
  Status model(const Json& m, BpeConfig* c);
  Status model_options(const Json& m, BpeConfig* c);
  Status merges(const Json& list, BpeConfig* c);
  Status added_tokens(const Json& list, size_t model_size, BpeConfig* c);
  Status set_token(BpeConfig* c, TokenId id, const std::string& spelling, std::string_view where) {
    if (static_cast<size_t>(id) >= c->tokens.size())
      return f_.corrupt(where, "id ", id, " too large");
    c->tokens[id] = spelling;
    c->used[id] = true;
    return ok_status();
  }

  JsonFields f_;
};

Status Parser::root(const Json& root, BpeConfig* c) {
  // The library's reader leaves the value of a key it does not know unread and then fails.
  static const std::set<std::string, std::less<>> kKeys = {
      "version",       "truncation", "padding",        "added_tokens", "normalizer",
      "pre_tokenizer", "model",      "post_processor", "decoder"};
  for (const auto& [key, value] : root.items())
    if (!kKeys.contains(key)) return f_.corrupt(key, "is not a tokenizer.json field");
  const Json& version = JsonFields::field(root, "version");
  if (!version.is_null() && version != "1.0")
    return f_.unsupported("version", version.dump(), " is not \"1.0\"");
  for (const char* key : {"truncation", "padding"})
    if (!JsonFields::field(root, key).is_null())
      return f_.unsupported(key, "encode never cuts or pads (set it to null)");
  TIR_RETURN_IF_ERROR(model(JsonFields::field(root, "model"), c));
  const size_t model_size = c->spelling_to_id.size();
  TIR_RETURN_IF_ERROR(
      parse_normalizer(f_, JsonFields::field(root, "normalizer"), "normalizer", 0, &c->normalizer));
  TIR_RETURN_IF_ERROR(added_tokens(JsonFields::field(root, "added_tokens"), model_size, c));
  bool byte_level = false;
  TIR_RETURN_IF_ERROR(parse_pre_tokenizer(f_, JsonFields::field(root, "pre_tokenizer"),
                                          "pre_tokenizer", 0, &c->pre_tokenizer, &byte_level));
  if (!byte_level)
    return f_.unsupported("pre_tokenizer", "has no ByteLevel (only byte-level BPE is read)");
  std::optional<std::vector<TemplatePiece>> post_template;
  TIR_RETURN_IF_ERROR(parse_post_processor(f_, JsonFields::field(root, "post_processor"),
                                           "post_processor", 0, c->used, &post_template));
  if (post_template) c->post_template = std::move(*post_template);
  return parse_decoder(f_, JsonFields::field(root, "decoder"), "decoder");
}

Status Parser::model(const Json& m, BpeConfig* c) {
  if (!m.is_object()) return f_.corrupt("model", "is not an object");
  const std::string type = JsonFields::type_of(m);
  if (!type.empty() && type != "BPE")
    return f_.unsupported("model.type", "'", type, "' is not read (only byte-level BPE is)");
  const Json& vocab = JsonFields::field(m, "vocab");
  if (!vocab.is_object()) return f_.corrupt("model.vocab", "is not an object");
  std::vector<std::pair<std::string, TokenId>> entries;
  entries.reserve(vocab.size());
  for (const auto& [spelling, value] : vocab.items()) {
    TIR_ASSIGN_OR_RETURN(const TokenId i, f_.id(value, "model.vocab['" + spelling + "']"));
    entries.emplace_back(spelling, i);
  }
  size_t limit = entries.size() + kMaxIdSlack;
  for (const auto& [spelling, i] : entries)
    if (static_cast<size_t>(i) >= limit)
      return f_.corrupt("model.vocab['" + spelling + "']", "token id ", i, " too large");
  c->tokens.resize(limit);
  c->used.resize(limit);
  for (const auto& [spelling, i] : entries) {
    // The reference decodes such an id to either spelling, as its hash map happens to order.
    if (c->used[i])
      return f_.unsupported("model.vocab['" + spelling + "']", "id ", i, " is also '", c->tokens[i],
                            "''s");
    TIR_RETURN_IF_ERROR(set_token(c, i, spelling, "model.vocab"));
    c->spelling_to_id[spelling] = i;
    bool mapped = false;
    std::string bytes = byte_level_decode(spelling, &mapped);
    if (mapped) c->bytes_to_id.emplace(std::move(bytes), i);
  }
  TIR_RETURN_IF_ERROR(model_options(m, c));
  const Json& list = JsonFields::field(m, "merges");
  if (list.is_null()) return f_.corrupt("model.merges", "missing");
  return merges(list, c);
}

Status Parser::model_options(const Json& m, BpeConfig* c) {
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const Json& v = JsonFields::field(m, key);
    if (!v.is_null() && !v.is_string())
      return f_.corrupt(field_path("model", key), "is not a string");
    if (v.is_string() && !v.get<std::string>().empty())
      return f_.unsupported(field_path("model", key), "is not read (byte-level BPE has none)");
  }
  const Json& dropout = JsonFields::field(m, "dropout");
  if (!dropout.is_null() && !dropout.is_number())
    return f_.corrupt("model.dropout", "is not a number");
  if (dropout.is_number() && dropout.get<double>() != 0.0)
    return f_.unsupported("model.dropout", dropout.dump(),
                          ": BPE dropout is random (only 0 or null is read)");
  TIR_ASSIGN_OR_RETURN(c->model.ignore_merges, f_.flag(m, "model", "ignore_merges", false));
  TIR_ASSIGN_OR_RETURN(c->model.fuse_unk, f_.flag(m, "model", "fuse_unk", false));
  const Json& unk = JsonFields::field(m, "unk_token");
  if (unk.is_string()) {
    auto it = c->spelling_to_id.find(unk.get<std::string>());
    // The reference fails at the first encode that needs it.
    if (it == c->spelling_to_id.end())
      return f_.unsupported("model.unk_token", "'", unk.get<std::string>(),
                            "' is not in the vocab");
    c->model.unk_id = it->second;
  } else if (!unk.is_null()) {
    return f_.corrupt("model.unk_token", "is not a string");
  }
  TIR_ASSIGN_OR_RETURN(const bool byte_fallback, f_.flag(m, "model", "byte_fallback", false));
  if (!byte_fallback) return ok_status();
  // Each byte's byte-level character, in UTF-8, as <0xXX> entries (all or none).
  c->model.byte_fallback.resize(256);
  for (int b = 0; b < 256; ++b) {
    std::string utf8;
    utf8_append(byte_level_char(static_cast<uint8_t>(b)), &utf8);
    std::vector<TokenId>& ids = c->model.byte_fallback[b];
    for (unsigned char u : utf8) {
      char name[8];
      std::snprintf(name, sizeof(name), "<0x%02X>", u);
      auto it = c->spelling_to_id.find(name);
      if (it == c->spelling_to_id.end()) {
        ids.clear();
        break;
      }
      ids.push_back(it->second);
    }
  }
  return ok_status();
}

Status Parser::merges(const Json& list, BpeConfig* c) {
  if (!list.is_array()) return f_.corrupt("model.merges", "is not an array");
  c->merges.reserve(list.size());
  const bool strings = !list.empty() && list[0].is_string();
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& m = list[i];
    const std::string where = item_path("model.merges", i);
    std::string left, right;
    if (m.is_string() && strings) {  // "a b"
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
        return f_.corrupt(where, "is not two tokens");
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (m.is_array() && !strings && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      left = m[0].get<std::string>();
      right = m[1].get<std::string>();
    } else {
      return f_.corrupt(where, "is neither \"a b\" nor [a, b] like the merges before it");
    }
    auto l = c->spelling_to_id.find(left), r = c->spelling_to_id.find(right),
         merged = c->spelling_to_id.find(left + right);
    if (l == c->spelling_to_id.end() || r == c->spelling_to_id.end() ||
        merged == c->spelling_to_id.end())
      return f_.corrupt(where, "('", left, "', '", right, "') is not in the vocab");
    c->merges.push_back({l->second, r->second, merged->second});
  }
  return ok_status();
}

/// The reference ignores the ids written here: an added token gets its vocabulary id, or the
/// next id after the vocabulary's count. A file whose ids differ is refused rather than read
/// either way.
Status Parser::added_tokens(const Json& list, size_t model_size, BpeConfig* c) {
  if (list.is_null()) return ok_status();
  if (!list.is_array()) return f_.corrupt("added_tokens", "is not an array");
  const Normalizer normalizer(c->normalizer);
  TokenId next_id = static_cast<TokenId>(model_size);
  std::unordered_map<std::string, size_t> seen;  // content -> index
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& t = list[i];
    const std::string where = item_path("added_tokens", i);
    AddedToken token;
    TIR_ASSIGN_OR_RETURN(const TokenId written, f_.id(JsonFields::field(t, "id"), where + ".id"));
    const Json& content = JsonFields::field(t, "content");
    if (!content.is_string()) return f_.corrupt(where + ".content", "is not a string");
    token.content = content.get<std::string>();
    TIR_ASSIGN_OR_RETURN(token.special, f_.flag(t, where, "special", std::nullopt));
    TIR_ASSIGN_OR_RETURN(token.normalized, f_.flag(t, where, "normalized", std::nullopt));
    TIR_ASSIGN_OR_RETURN(token.lstrip, f_.flag(t, where, "lstrip", std::nullopt));
    TIR_ASSIGN_OR_RETURN(token.rstrip, f_.flag(t, where, "rstrip", std::nullopt));
    TIR_ASSIGN_OR_RETURN(token.single_word, f_.flag(t, where, "single_word", std::nullopt));
    if (token.content.empty()) continue;  // the reference skips it
    if (auto [it, fresh] = seen.emplace(token.content, i); !fresh)
      return f_.unsupported(where + ".content", "repeats added_tokens[", it->second, "]");
    auto in_vocab = c->spelling_to_id.find(token.content);
    token.id = in_vocab != c->spelling_to_id.end() ? in_vocab->second : next_id++;
    if (written != token.id)
      return f_.unsupported(where + ".id", written, ", but the tokenizers library gives '",
                            token.content, "' id ", token.id);
    token.match_text = token.content;
    if (token.normalized) {
      auto normalized = normalizer.normalize(token.content);
      if (!normalized.ok()) return f_.corrupt(where + ".content", normalized.status().message());
      token.match_text = std::move(normalized).value();
    }
    if (static_cast<size_t>(token.id) >= c->tokens.size()) {
      c->tokens.resize(token.id + 1);
      c->used.resize(token.id + 1);
    }
    TIR_RETURN_IF_ERROR(set_token(c, token.id, token.content, where + ".id"));
    c->added.push_back(std::move(token));
  }
  // Added tokens win over vocabulary entries of the same spelling only after all are read,
  // so that each one's id above came from the model's vocabulary.
  for (const AddedToken& t : c->added) c->spelling_to_id[t.content] = t.id;
  return ok_status();
}

}  // namespace

Result<BpeConfig> parse_tokenizer_json(std::string_view text, const std::string& path) {
  TIR_ASSIGN_OR_RETURN(const Json root, parse_json_strict(text, "tokenizer file '" + path + "'"));
  if (root.is_discarded() || !root.is_object())
    return make_error(StatusCode::kCorrupt, "tokenizer file '", path, "': not a JSON object");
  BpeConfig c;
  Parser parser(path);
  TIR_RETURN_IF_ERROR(parser.root(root, &c));
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
    const Json& v = JsonFields::field(root, key);
    const Json& content = v.is_object() ? JsonFields::field(v, "content") : v;
    if (content.is_string()) return content.get<std::string>();
    return std::nullopt;
  };
  names.bos = name("bos_token");
  names.eos = name("eos_token");
  return names;
}

}  // namespace tir::tokenizer
