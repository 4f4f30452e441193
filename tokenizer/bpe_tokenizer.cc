#include "tokenizer/bpe_tokenizer.h"

#include <filesystem>
#include <utility>

#include "tokenizer/byte_level.h"
#include "tokenizer/file.h"
#include "tokenizer/tokenizer_json.h"
#include "tokenizer/utf8.h"

namespace tir::tokenizer {
namespace {

class BpeTokenizer final : public Tokenizer {
 public:
  BpeTokenizer(BpeConfig c, std::optional<TokenId> bos, std::optional<TokenId> eos)
      : tokens_(std::move(c.tokens)),
        used_(std::move(c.used)),
        spelling_to_id_(std::move(c.spelling_to_id)),
        model_(std::move(c.bytes_to_id), c.merges, c.model),
        raw_added_(c.added, /*normalized=*/false),
        normalized_added_(c.added, /*normalized=*/true),
        normalizer_(std::move(c.normalizer)),
        pre_tokenizer_(std::move(c.pre_tokenizer)),
        post_template_(std::move(c.post_template)),
        bos_(bos),
        eos_(eos) {
    special_.resize(tokens_.size());
    for (const AddedToken& t : c.added) special_[t.id] = t.special;
    bytes_.reserve(tokens_.size());
    for (const std::string& t : tokens_) bytes_.push_back(byte_level_decode(t));
    // The reference decodes a normalized added token from its normalized form.
    for (const AddedToken& t : c.added) bytes_[t.id] = byte_level_decode(t.match_text);
  }

  Result<std::vector<TokenId>> encode(std::string_view text,
                                      const EncodeOptions& options) const override {
    if (!utf8_valid(text)) return Status(StatusCode::kInvalidArgument, "text is not valid UTF-8");
    std::vector<Segment> raw, segments;
    raw_added_.split(text, &raw);
    for (Segment& s : raw) {
      if (s.id >= 0) {
        segments.push_back(std::move(s));
        continue;
      }
      if (!normalizer_.empty()) {
        TIR_ASSIGN_OR_RETURN(s.text, normalizer_.normalize(s.text));
      }
      normalized_added_.split(s.text, &segments);
    }
    std::vector<TokenId> ids;
    for (const Segment& s : segments) {
      if (s.id >= 0) {
        ids.push_back(s.id);
        continue;
      }
      TIR_ASSIGN_OR_RETURN(const std::vector<std::string> words, pre_tokenizer_.words(s.text));
      for (const std::string& word : words) model_.encode_word(word, &ids);
    }
    return apply_template(ids, options.add_special_tokens);
  }

  Result<std::string> decode(std::span<const TokenId> ids,
                             const DecodeOptions& options) const override {
    std::string bytes;
    for (TokenId id : ids) {
      if (!valid(id))
        return make_error(StatusCode::kInvalidArgument, "token id ", id, " is not in the vocab");
      if (options.skip_special_tokens && special_[id]) continue;
      bytes += bytes_[id];
    }
    return utf8_lossy(bytes);
  }

  std::optional<TokenId> token_to_id(std::string_view token) const override {
    auto it = spelling_to_id_.find(std::string(token));
    if (it == spelling_to_id_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<std::string> id_to_token(TokenId id) const override {
    if (!valid(id)) return std::nullopt;
    return tokens_[id];
  }
  TokenId vocab_size() const override { return static_cast<TokenId>(tokens_.size()); }
  bool is_special(TokenId id) const override { return valid(id) && special_[id]; }
  std::optional<TokenId> bos_id() const override { return bos_; }
  std::optional<TokenId> eos_id() const override { return eos_; }

 private:
  /// The post-processor's template around `ids` (each text piece is the whole text).
  std::vector<TokenId> apply_template(std::vector<TokenId> ids, bool add_special_tokens) const {
    if (post_template_.empty()) return ids;
    std::vector<TokenId> out;
    for (const TemplatePiece& piece : post_template_) {
      if (piece.text) {
        out.insert(out.end(), ids.begin(), ids.end());
      } else if (add_special_tokens) {
        out.insert(out.end(), piece.ids.begin(), piece.ids.end());
      }
    }
    return out;
  }

  bool valid(TokenId id) const {
    return id >= 0 && static_cast<size_t>(id) < tokens_.size() && used_[id];
  }

  std::vector<std::string> tokens_;  // spelling by id
  std::vector<std::string> bytes_;   // what each id decodes to
  std::vector<bool> used_, special_;
  std::unordered_map<std::string, TokenId> spelling_to_id_;
  BpeModel model_;
  AddedTokenMatcher raw_added_, normalized_added_;
  Normalizer normalizer_;
  PreTokenizer pre_tokenizer_;
  std::vector<TemplatePiece> post_template_;
  std::optional<TokenId> bos_, eos_;
};

}  // namespace

namespace {

/// BOS and EOS are those `names` spell (tokenizer_config.json) when given, else BOS is the
/// template's first token when it comes before the text.
Result<std::unique_ptr<Tokenizer>> make_bpe_tokenizer(std::string_view text,
                                                      const std::string& path,
                                                      const SpecialTokenNames* names) {
  TIR_ASSIGN_OR_RETURN(BpeConfig config, parse_tokenizer_json(text, path));
  std::optional<TokenId> bos, eos;
  for (const TemplatePiece& piece : config.post_template) {
    if (!piece.text && !piece.ids.empty()) bos = piece.ids.front();
    if (piece.text || bos) break;
  }
  auto lookup = [&](const std::optional<std::string>& name) -> std::optional<TokenId> {
    if (!name) return std::nullopt;
    auto it = config.spelling_to_id.find(*name);
    if (it == config.spelling_to_id.end()) return std::nullopt;
    return it->second;
  };
  if (names != nullptr) {
    if (names->bos) bos = lookup(names->bos);
    eos = lookup(names->eos);
  }
  return std::unique_ptr<Tokenizer>(new BpeTokenizer(std::move(config), bos, eos));
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> load_bpe_tokenizer(std::string_view text,
                                                      const std::string& path) {
  return make_bpe_tokenizer(text, path, nullptr);
}

Result<std::unique_ptr<Tokenizer>> open_bpe_tokenizer(const std::string& path) {
  TIR_ASSIGN_OR_RETURN(const std::string text, read_tokenizer_file(path));
  const std::string config_path =
      (std::filesystem::path(path).parent_path() / "tokenizer_config.json").string();
  std::error_code ec;
  if (!std::filesystem::exists(config_path, ec)) return make_bpe_tokenizer(text, path, nullptr);
  TIR_ASSIGN_OR_RETURN(const std::string config_text, read_tokenizer_file(config_path));
  TIR_ASSIGN_OR_RETURN(const SpecialTokenNames names,
                       parse_tokenizer_config(config_text, config_path));
  return make_bpe_tokenizer(text, path, &names);
}

}  // namespace tir::tokenizer
