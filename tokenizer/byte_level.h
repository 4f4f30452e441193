// GPT-2's byte-level alphabet: each of the 256 bytes is written as one printable character
// (printable Latin-1 bytes as themselves, the others as U+0100.. in byte order), so that a
// vocabulary of byte strings can be stored as text. "Ġ" (U+0120) is the space byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tir::tokenizer {

/// The character that stands for `byte`.
char32_t byte_level_char(uint8_t byte);

/// The byte `c` stands for, or -1 if it is not in the alphabet.
int byte_level_byte(char32_t c);

/// The bytes a vocabulary entry stands for, as the ByteLevel decoder reads it: each
/// character's byte if all of them are in the alphabet, else the entry's own UTF-8 (an added
/// token such as "<|eot_id|>" is both). `*out_mapped` says which (may be null).
std::string byte_level_decode(std::string_view token, bool* out_mapped = nullptr);

}  // namespace tir::tokenizer
