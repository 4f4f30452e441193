// Hugging Face tokenizer.json files of byte-level BPE models (GPT-2, Llama 3, Qwen2). The
// fields read, and what each may hold (anything else is refused, naming the field):
//   model          {"type": "BPE", "vocab": {token: id}, "merges": ["a b", ...] or
//                  [["a", "b"], ...], "ignore_merges", "unk_token", "fuse_unk"; dropout,
//                  continuing_subword_prefix, end_of_word_suffix unset; byte_fallback false}
//   added_tokens   [{"id", "content", "special", "normalized", "lstrip", "rstrip",
//                  "single_word": false}]
//   normalizer     null, NFC, or a Sequence of NFC
//   pre_tokenizer  Split / ByteLevel / Sequence ending in ByteLevel (pre_tokenizer.h)
//   post_processor null, ByteLevel, TemplateProcessing ("single": special tokens around $A),
//                  or a Sequence of those
//   decoder        ByteLevel
// "truncation" and "padding" are not applied: encode never cuts or pads. BOS and EOS come from
// tokenizer_config.json beside the file ("bos_token", "eos_token") when there is one, else
// BOS is the first token the post-processor puts before the text.
#pragma once

#include <memory>
#include <string>

#include "tokenizer/tokenizer.h"

namespace tir::tokenizer {

Result<std::unique_ptr<Tokenizer>> open_bpe_tokenizer(const std::string& path);

}  // namespace tir::tokenizer
