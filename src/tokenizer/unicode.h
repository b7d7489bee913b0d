// Unicode properties and normalisation used by the tokenizer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace laya::tokenizer::unicode {

// Classes of the GPT-2 pre-tokenizer regex as Hugging Face's Oniguruma sees them (generated table
// gpt2_classes.inc, probed from tokenizers itself so that the Unicode versions agree).
enum class Gpt2Class : uint8_t { other = 0, letter = 1, number = 2, space = 3 };
Gpt2Class gpt2_class(char32_t c) noexcept;

// Rust regex `\s` (Unicode White_Space), used by added-token lstrip/rstrip.
bool is_white_space(char32_t c) noexcept;
// Rust regex `\w` (Alphabetic, marks, decimal numbers, connector punctuation, join controls), used
// by added-token single_word.
bool is_word_char(char32_t c) noexcept;

enum class Form { nfc, nfd, nfkc, nfkd };
// Appends the normalisation of valid UTF-8 `s` to `out` (utf8proc).
void normalize(std::string_view s, Form form, std::string& out);

}  // namespace laya::tokenizer::unicode
