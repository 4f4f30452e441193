// StreamDecoder: the text printed token by token is the full decode, and never ends inside a
// UTF-8 character.
#include <gtest/gtest.h>

#include "tests/tokenizer/reference.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace tir::tokenizer::testing {
namespace {

struct Streamed {
  std::string text;
  size_t held = 0;  // tokens that printed nothing
};

/// Streams `ids`, checking that each piece is valid UTF-8.
Streamed stream(const Tokenizer& t, const std::vector<TokenId>& ids, DecodeOptions options) {
  StreamDecoder decoder(t, options);
  Streamed out;
  for (TokenId id : ids) {
    auto piece = decoder.next(id);
    EXPECT_TRUE(piece.ok()) << piece.status().message();
    if (!piece.ok()) return out;
    EXPECT_TRUE(utf8_valid(*piece)) << quoted(*piece);
    out.held += piece->empty();
    out.text += *piece;
  }
  auto rest = decoder.flush();
  EXPECT_TRUE(rest.ok());
  if (rest.ok()) {
    EXPECT_TRUE(utf8_valid(*rest));
    out.text += *rest;
  }
  return out;
}

class StreamTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StreamTest, ConcatenationIsTheFullDecode) {
  auto t = open_fixture(GetParam());
  ASSERT_NE(t, nullptr);
  size_t held = 0;
  for (const auto& c : reference()[GetParam()]["cases"]) {
    for (bool skip : {false, true}) {
      const std::vector<TokenId> ids = ids_of(c["ids_with_special"]);
      auto full = t->decode(ids, {.skip_special_tokens = skip});
      ASSERT_TRUE(full.ok());
      const Streamed s = stream(*t, ids, {.skip_special_tokens = skip});
      EXPECT_EQ(s.text, *full) << "text " << quoted(c["text"]) << " skip " << skip;
      held += s.held;
    }
  }
  EXPECT_GT(held, 0u);  // the corpus has characters split over several tokens
}

TEST_P(StreamTest, InvalidBytesStreamAsTheFullDecode) {
  auto t = open_fixture(GetParam());
  ASSERT_NE(t, nullptr);
  for (const auto& c : reference()[GetParam()]["random_decodes"]) {
    const Streamed s = stream(*t, ids_of(c["ids"]), {});
    EXPECT_EQ(s.text, c["text"].get<std::string>()) << "ids " << c["ids"].dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, StreamTest, ::testing::ValuesIn(tokenizer_names()),
                         [](const auto& info) { return info.param; });

// An emoji's four bytes, one token each: nothing is printed until the last.
TEST(StreamDecoder, HoldsAnIncompleteCharacter) {
  auto t = open_fixture("gpt2");
  ASSERT_NE(t, nullptr);
  std::vector<TokenId> bytes;
  for (const char* token : {"ð", "Ł", "ĺ", "Ģ"}) {  // U+1F600 in the byte-level alphabet
    auto id = t->token_to_id(token);
    ASSERT_TRUE(id.has_value()) << token;
    bytes.push_back(*id);
  }
  StreamDecoder decoder(*t);
  for (size_t i = 0; i < 3; ++i) {
    auto piece = decoder.next(bytes[i]);
    ASSERT_TRUE(piece.ok());
    EXPECT_EQ(*piece, "");
  }
  auto last = decoder.next(bytes[3]);
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(*last, "\U0001F600");
  // An incomplete character left at the end is flushed as U+FFFD.
  ASSERT_TRUE(decoder.next(bytes[0]).ok());
  auto rest = decoder.flush();
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(*rest, "\uFFFD");
}

}  // namespace
}  // namespace tir::tokenizer::testing
