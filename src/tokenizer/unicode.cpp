#include "tokenizer/unicode.h"

#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <cstdlib>
#include <memory>
#include <vector>

#include "laya/errors.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer::unicode {
namespace {

struct Run {
  char32_t first;
  uint8_t cls;
};
constexpr Run kGpt2Runs[] = {
#include "tokenizer/gpt2_classes.inc"
};

// One byte per code point (1.1 MB), built once: the splitter looks a class up for every character.
const uint8_t* gpt2_table() {
  static const std::unique_ptr<uint8_t[]> table = [] {
    auto t = std::make_unique<uint8_t[]>(0x110000);
    constexpr std::size_t n = sizeof(kGpt2Runs) / sizeof(kGpt2Runs[0]);
    for (std::size_t r = 0; r < n; ++r) {
      const char32_t end = r + 1 < n ? kGpt2Runs[r + 1].first : 0x110000;
      for (char32_t c = kGpt2Runs[r].first; c < end; ++c) t[c] = kGpt2Runs[r].cls;
    }
    return t;
  }();
  return table.get();
}

constexpr char32_t kNfcBarriers[] = {
#include "tokenizer/nfc_barriers.inc"
};

bool is_barrier(char32_t c) {
  return std::binary_search(std::begin(kNfcBarriers), std::end(kNfcBarriers), c);
}

void normalize_utf8proc(std::string_view s, int options, std::string& out) {
  if (s.empty()) return;
  utf8proc_uint8_t* result = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                          static_cast<utf8proc_ssize_t>(s.size()), &result,
                                          static_cast<utf8proc_option_t>(options));
  if (n < 0) {
    std::free(result);
    LAYA_FAIL(ErrorKind::internal, "unicode normalisation failed: {}", utf8proc_errmsg(n));
  }
  out.append(reinterpret_cast<const char*>(result), static_cast<std::size_t>(n));
  std::free(result);
}

}  // namespace

Gpt2Class gpt2_class(char32_t c) noexcept {
  if (c >= 0x110000) return Gpt2Class::other;
  return static_cast<Gpt2Class>(gpt2_table()[c]);
}

bool is_white_space(char32_t c) noexcept {
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0x85: case 0xA0:
    case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool is_word_char(char32_t c) noexcept {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  if (c == 0x200C || c == 0x200D) return true;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(c))) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME: case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL: case UTF8PROC_CATEGORY_PC:
      return true;
    default:
      return gpt2_class(c) == Gpt2Class::letter;
  }
}

void normalize(std::string_view s, Form form, std::string& out) {
  // Below U+0300 nothing decomposes, composes with a following character or reorders: NFC/NFD of
  // such text is the text itself (compatibility forms still need the library for e.g. U+00A0).
  if (form == Form::nfc || form == Form::nfd) {
    bool simple = true;
    for (unsigned char b : s) {
      if (b >= 0xCC) {  // lead bytes of U+0300 and above
        simple = false;
        break;
      }
    }
    if (simple) {
      out.append(s);
      return;
    }
  }
  int options = UTF8PROC_STABLE;
  switch (form) {
    case Form::nfc: options |= UTF8PROC_COMPOSE; break;
    case Form::nfd: options |= UTF8PROC_DECOMPOSE; break;
    case Form::nfkc: options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT; break;
    case Form::nfkd: options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT; break;
  }
  // HF's normalisation data is older than utf8proc's: code points it does not know act as class-0
  // characters that nothing composes with, i.e. barriers; normalise the text between them.
  std::size_t seg = 0, i = 0;
  while (i < s.size()) {
    const std::size_t at = i;
    const char32_t c = utf8::next(s, i);
    if (c >= 0x7FD && is_barrier(c)) {
      normalize_utf8proc(s.substr(seg, at - seg), options, out);
      out.append(s.substr(at, i - at));
      seg = i;
    }
  }
  normalize_utf8proc(s.substr(seg), options, out);
}

}  // namespace laya::tokenizer::unicode
