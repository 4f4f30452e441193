#include "tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <exception>

#include "tokenizer/file.h"
#include "tokenizer/utf8.h"

namespace tir::tokenizer {
namespace {

class SentencePieceTokenizer final : public Tokenizer {
 public:
  Status load(std::string_view bytes, const std::string& path) {
    sentencepiece::util::Status status;
    // The library throws on some malformed models (its trie builder on an empty piece):
    // the exception ends here, as an error, never crossing tir's API.
    try {
      status = processor_.LoadFromSerializedProto({bytes.data(), bytes.size()});
    } catch (const std::exception& e) {
      return make_error(StatusCode::kCorrupt, "sentencepiece model '", path,
                        "': libsentencepiece failed: ", e.what());
    }
    if (!status.ok())
      return make_error(StatusCode::kCorrupt, "sentencepiece model '", path,
                        "': ", status.ToString());
    return ok_status();
  }

  Result<std::vector<TokenId>> encode(std::string_view text,
                                      const EncodeOptions& options) const override {
    if (!utf8_valid(text)) return Status(StatusCode::kInvalidArgument, "text is not valid UTF-8");
    std::vector<int> pieces;
    const auto status = processor_.Encode({text.data(), text.size()}, &pieces);
    if (!status.ok())
      return make_error(StatusCode::kInternal, "sentencepiece: ", status.ToString());
    std::vector<TokenId> ids;
    ids.reserve(pieces.size() + 1);
    if (options.add_special_tokens && processor_.bos_id() >= 0) ids.push_back(processor_.bos_id());
    ids.insert(ids.end(), pieces.begin(), pieces.end());
    return ids;
  }

  Result<std::string> decode(std::span<const TokenId> ids,
                             const DecodeOptions& options) const override {
    std::vector<int> pieces;
    pieces.reserve(ids.size());
    for (TokenId id : ids) {
      if (id < 0 || id >= vocab_size())
        return make_error(StatusCode::kInvalidArgument, "token id ", id, " is not in the vocab");
      if (!(options.skip_special_tokens && is_special(id))) pieces.push_back(id);
    }
    std::string text;
    const auto status = processor_.Decode(pieces, &text);
    if (!status.ok())
      return make_error(StatusCode::kInternal, "sentencepiece: ", status.ToString());
    return text;
  }

  std::optional<TokenId> token_to_id(std::string_view token) const override {
    const int id = processor_.PieceToId({token.data(), token.size()});
    if (id < 0 || processor_.IdToPiece(id) != token) return std::nullopt;
    return id;
  }
  std::optional<std::string> id_to_token(TokenId id) const override {
    if (id < 0 || id >= vocab_size()) return std::nullopt;
    return processor_.IdToPiece(id);
  }
  TokenId vocab_size() const override { return processor_.GetPieceSize(); }
  bool is_special(TokenId id) const override {
    return id >= 0 && id < vocab_size() && processor_.IsControl(id);
  }
  std::optional<TokenId> bos_id() const override { return optional_id(processor_.bos_id()); }
  std::optional<TokenId> eos_id() const override { return optional_id(processor_.eos_id()); }

 private:
  static std::optional<TokenId> optional_id(int id) {
    return id >= 0 ? std::optional<TokenId>(id) : std::nullopt;
  }
  sentencepiece::SentencePieceProcessor processor_;
};

}  // namespace

Result<std::unique_ptr<Tokenizer>> load_sentencepiece_tokenizer(std::string_view bytes,
                                                                const std::string& path) {
  auto tokenizer = std::make_unique<SentencePieceTokenizer>();
  TIR_RETURN_IF_ERROR(tokenizer->load(bytes, path));
  return std::unique_ptr<Tokenizer>(std::move(tokenizer));
}

Result<std::unique_ptr<Tokenizer>> open_sentencepiece_tokenizer(const std::string& path) {
  TIR_ASSIGN_OR_RETURN(const std::string bytes, read_tokenizer_file(path));
  return load_sentencepiece_tokenizer(bytes, path);
}

}  // namespace tir::tokenizer
