// Text <-> token ids for the models tir runs, read natively from the files model repositories
// ship: Hugging Face `tokenizer.json` (byte-level BPE: GPT-2, Llama 3, Qwen2) and SentencePiece
// `*.model` files (Llama 2, Mistral, Gemma). Token-for-token equal to the `tokenizers` and
// `sentencepiece` libraries; tests/tokenizer checks this on a corpus those libraries encoded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace tir::tokenizer {

using TokenId = int32_t;

struct EncodeOptions {
  /// Add what the tokenizer's post-processor adds around a text (the BOS token of Llama 3 and
  /// SentencePiece models). Special tokens written in the text are recognized either way.
  bool add_special_tokens = true;
};

struct DecodeOptions {
  /// Leave special tokens (BOS, EOS, chat markers) out of the text.
  bool skip_special_tokens = false;
};

/// A loaded tokenizer. Immutable after opening: every method is const and may be called from
/// several threads at once.
class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  /// The ids of UTF-8 `text`; kInvalidArgument if it is not valid UTF-8.
  virtual Result<std::vector<TokenId>> encode(std::string_view text,
                                              const EncodeOptions& options = {}) const = 0;
  /// The UTF-8 text of `ids`; bytes that do not form UTF-8 become U+FFFD (as the reference
  /// libraries do). kInvalidArgument for an id outside the vocabulary.
  virtual Result<std::string> decode(std::span<const TokenId> ids,
                                     const DecodeOptions& options = {}) const = 0;

  /// The id of a token written as in the vocabulary ("<|eot_id|>", "Ġthe", "▁the").
  virtual std::optional<TokenId> token_to_id(std::string_view token) const = 0;
  /// The vocabulary's spelling of `id`, if the id exists.
  virtual std::optional<std::string> id_to_token(TokenId id) const = 0;
  /// One more than the largest id.
  virtual TokenId vocab_size() const = 0;
  virtual bool is_special(TokenId id) const = 0;
  /// Beginning / end of sequence, when the files name them.
  virtual std::optional<TokenId> bos_id() const = 0;
  virtual std::optional<TokenId> eos_id() const = 0;
};

/// Opens `path` by its name: `*.json` is a Hugging Face tokenizer.json, `*.model` a
/// SentencePiece model; a folder is searched for tokenizer.json, then tokenizer.model.
/// Unsupported parts of a file are refused with a Status naming the file and the field.
Result<std::unique_ptr<Tokenizer>> open_tokenizer(const std::string& path);

enum class TokenizerFormat {
  kHuggingFaceJson,  // tokenizer.json
  kSentencePiece,    // *.model
};

/// Reads a tokenizer from the bytes of its file (a fuzzer's or an embedder's buffer); `name`
/// stands for the file in messages. No tokenizer_config.json is read beside it.
Result<std::unique_ptr<Tokenizer>> load_tokenizer(std::string_view bytes, TokenizerFormat format,
                                                  const std::string& name);

/// Turns a stream of ids (a generate loop's output) into text as it becomes printable: the
/// text of a token whose bytes end inside a UTF-8 character is held until the character is
/// complete. The concatenation of every `next` and the final `flush` equals
/// `decode(all ids)`. Holds a reference to `tokenizer`, which must outlive it; not
/// thread-safe. Each call decodes only the ids since the last printed text and the ones just
/// before them (which decide, e.g., SentencePiece's leading space).
class StreamDecoder {
 public:
  explicit StreamDecoder(const Tokenizer& tokenizer, DecodeOptions options = {})
      : tokenizer_(tokenizer), options_(options) {}

  /// The text that `id` completes; empty while a character is incomplete.
  Result<std::string> next(TokenId id);
  /// What is still held (an incomplete character at the end becomes U+FFFD); starts over.
  Result<std::string> flush();

 private:
  const Tokenizer& tokenizer_;
  DecodeOptions options_;
  std::vector<TokenId> window_;  // printed context ids, then ids not printed yet
  size_t printed_ = 0;           // how many of window_ are context
  std::string printed_text_;     // decode(window_[0, printed_))
};

}  // namespace tir::tokenizer
