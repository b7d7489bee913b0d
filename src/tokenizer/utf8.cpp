#include "tokenizer/utf8.h"

namespace laya::tokenizer::utf8 {
namespace {

// Length of the valid sequence at s[i], or 0 when invalid; `maximal` receives the length of the
// maximal subpart of an ill-formed sequence (at least 1) as the Unicode standard defines it.
std::size_t valid_len(const unsigned char* p, std::size_t n, std::size_t& maximal) noexcept {
  const unsigned char b = p[0];
  maximal = 1;
  if (b < 0x80) return 1;
  std::size_t len;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    len = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    len = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;  // surrogates
  } else if (b >= 0xF0 && b <= 0xF4) {
    len = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (n < 2 || p[1] < lo || p[1] > hi) return 0;
  maximal = 2;
  for (std::size_t k = 2; k < len; ++k) {
    if (n <= k || p[k] < 0x80 || p[k] > 0xBF) return 0;
    maximal = k + 1;
  }
  return len;
}

}  // namespace

std::size_t find_invalid(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    // ASCII fast path, 8 bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      __builtin_memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    std::size_t maximal;
    const std::size_t len = valid_len(p + i, n - i, maximal);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::string lossy(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::string out;
  out.reserve(n);
  std::size_t i = 0;
  while (i < n) {
    std::size_t maximal;
    const std::size_t len = valid_len(p + i, n - i, maximal);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      i += maximal;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

}  // namespace laya::tokenizer::utf8
