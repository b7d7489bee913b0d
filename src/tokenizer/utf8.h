// UTF-8 helpers for the tokenizer: strict validation and code point iteration.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace laya::tokenizer::utf8 {

// Byte offset of the first invalid sequence (overlong forms, surrogates U+D800..DFFF as in
// CESU-8/WTF-8, values above U+10FFFF, truncated or stray continuation bytes), or npos if valid.
std::size_t find_invalid(std::string_view s) noexcept;

// Decodes the code point at s[i] (s must be valid UTF-8) and advances i.
inline char32_t next(std::string_view s, std::size_t& i) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  const unsigned char b = p[0];
  if (b < 0x80) {
    i += 1;
    return b;
  }
  if (b < 0xE0) {
    i += 2;
    return (char32_t(b & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (b < 0xF0) {
    i += 3;
    return (char32_t(b & 0x0F) << 12) | (char32_t(p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  i += 4;
  return (char32_t(b & 0x07) << 18) | (char32_t(p[1] & 0x3F) << 12) | (char32_t(p[2] & 0x3F) << 6) | (p[3] & 0x3F);
}

// Length of the UTF-8 sequence starting with lead byte b (valid input).
inline std::size_t seq_len(unsigned char b) noexcept { return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4; }

inline void append(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(char(c));
  } else if (c < 0x800) {
    out.push_back(char(0xC0 | (c >> 6)));
    out.push_back(char(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(char(0xE0 | (c >> 12)));
    out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(char(0x80 | (c & 0x3F)));
  } else {
    out.push_back(char(0xF0 | (c >> 18)));
    out.push_back(char(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(char(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(char(0x80 | (c & 0x3F)));
  }
}

// Rust's String::from_utf8_lossy: each maximal invalid subpart becomes U+FFFD.
std::string lossy(std::string_view bytes);

}  // namespace laya::tokenizer::utf8
