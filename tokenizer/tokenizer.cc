#include "tokenizer/tokenizer.h"

#include <filesystem>
#include <fstream>

#include "core/regular_file.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/file.h"
#include "tokenizer/sentencepiece_tokenizer.h"

namespace tir::tokenizer {

namespace fs = std::filesystem;

Result<std::string> read_tokenizer_file(const std::string& path) {
  return read_regular_file(path, "tokenizer file");
}

Result<std::unique_ptr<Tokenizer>> open_tokenizer(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const char* name : {"tokenizer.json", "tokenizer.model"}) {
      const fs::path file = fs::path(path) / name;
      if (fs::exists(file, ec)) return open_tokenizer(file.string());
    }
    return make_error(StatusCode::kNotFound, "tokenizer folder '", path,
                      "': no tokenizer.json or tokenizer.model");
  }
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".json") return open_bpe_tokenizer(path);
  if (extension == ".model") return open_sentencepiece_tokenizer(path);
  return make_error(StatusCode::kUnsupported, "tokenizer file '", path,
                    "': expected tokenizer.json (Hugging Face) or *.model (SentencePiece)");
}

Result<std::unique_ptr<Tokenizer>> load_tokenizer(std::string_view bytes, TokenizerFormat format,
                                                  const std::string& name) {
  if (format == TokenizerFormat::kSentencePiece) return load_sentencepiece_tokenizer(bytes, name);
  return load_bpe_tokenizer(bytes, name);
}

namespace {
bool ends_incomplete(const std::string& text) {
  return text.size() >= 3 && text.compare(text.size() - 3, 3, "\xEF\xBF\xBD") == 0;
}
}  // namespace

Result<std::string> StreamDecoder::next(TokenId id) {
  window_.push_back(id);
  TIR_ASSIGN_OR_RETURN(std::string text, tokenizer_.decode(window_, options_));
  // Held while the new text is empty or ends in U+FFFD: the next token may complete it.
  if (text.size() <= printed_text_.size() || ends_incomplete(text)) return std::string();
  size_t common = 0;  // printed_text_ is a prefix of text, except in pathological decoders
  while (common < printed_text_.size() && text[common] == printed_text_[common]) ++common;
  while (common > 0 && (static_cast<uint8_t>(text[common]) & 0xC0) == 0x80) --common;
  std::string fresh = text.substr(common);
  // The ids just printed become the context of the next ones.
  window_.erase(window_.begin(), window_.begin() + static_cast<ptrdiff_t>(printed_));
  printed_ = window_.size();
  TIR_ASSIGN_OR_RETURN(printed_text_, tokenizer_.decode(window_, options_));
  return fresh;
}

Result<std::string> StreamDecoder::flush() {
  std::string fresh;
  if (window_.size() > printed_) {
    TIR_ASSIGN_OR_RETURN(std::string text, tokenizer_.decode(window_, options_));
    if (text.size() > printed_text_.size()) fresh = text.substr(printed_text_.size());
  }
  window_.clear();
  printed_ = 0;
  printed_text_.clear();
  return fresh;
}

}  // namespace tir::tokenizer
