// libFuzzer target: a SentencePiece .model (a protobuf that libsentencepiece parses and
// checks), then, when it loads, encode, decode and streaming of a few texts.
#include "fuzz/tokenizer_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tir::fuzz::fuzz_tokenizer(data, size, tir::tokenizer::TokenizerFormat::kSentencePiece,
                                   "fuzz.model");
}
