#include "tokenizer/components.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer {
namespace {

void replace_all(std::string& s, std::string_view pat, std::string_view with) {
  if (pat.empty()) return;
  std::string out;
  std::size_t pos = 0, hit;
  while ((hit = s.find(pat, pos)) != std::string::npos) {
    out.append(s, pos, hit - pos);
    out.append(with);
    pos = hit + pat.size();
  }
  out.append(s, pos);
  s.swap(out);
}

int parse_byte_token(const std::string& t) {  // "<0xAB>" -> 0xAB, else -1
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  const int h = hex(t[3]), l = hex(t[4]);
  return h < 0 || l < 0 ? -1 : h * 16 + l;
}

}  // namespace

void Decoder::apply(std::vector<std::string>& tokens) const {
  switch (kind) {
    case Kind::sequence:
      for (const Decoder& d : children) d.apply(tokens);
      return;
    case Kind::byte_level: {
      // Each token maps back to bytes when all its characters are in the alphabet, else it keeps
      // its own UTF-8; the whole is then decoded lossily.
      std::string bytes;
      for (const std::string& t : tokens) {
        std::string tb;
        bool ok = true;
        std::size_t i = 0;
        while (i < t.size()) {
          const int b = byte_from_unicode(utf8::next(t, i));
          if (b < 0) {
            ok = false;
            break;
          }
          tb.push_back(char(b));
        }
        bytes += ok ? tb : t;
      }
      tokens.assign(1, utf8::lossy(bytes));
      return;
    }
    case Kind::metaspace:
      for (std::size_t i = 0; i < tokens.size(); ++i) {
        std::string& t = tokens[i];
        // HF drops every replacement character of the first token (not only a leading one).
        replace_all(t, replacement, i == 0 && prepend ? "" : " ");
      }
      return;
    case Kind::byte_fallback: {
      std::vector<std::string> out;
      std::string pending;
      bool in_bytes = false;
      auto flush = [&] {
        if (!in_bytes) return;
        if (utf8::find_invalid(pending) == std::string_view::npos) {
          out.push_back(pending);
        } else {
          for (std::size_t k = 0; k < pending.size(); ++k) out.emplace_back("\xEF\xBF\xBD");
        }
        pending.clear();
        in_bytes = false;
      };
      for (std::string& t : tokens) {
        const int b = parse_byte_token(t);
        if (b >= 0) {
          pending.push_back(char(b));
          in_bytes = true;
        } else {
          flush();
          out.push_back(std::move(t));
        }
      }
      flush();
      tokens.swap(out);
      return;
    }
    case Kind::fuse: {
      std::string all;
      for (const std::string& t : tokens) all += t;
      tokens.assign(1, std::move(all));
      return;
    }
    case Kind::strip:
      for (std::string& t : tokens) {
        std::size_t b = 0;
        for (std::size_t k = 0; k < start && t.compare(b, content.size(), content) == 0 && b < t.size(); ++k) b += content.size();
        std::size_t e = t.size();
        for (std::size_t k = 0; k < stop && e >= b + content.size() && t.compare(e - content.size(), content.size(), content) == 0; ++k)
          e -= content.size();
        t = t.substr(b, e - b);
      }
      return;
    case Kind::replace:
      for (std::string& t : tokens) replace_all(t, pattern, content);
      return;
  }
}

}  // namespace laya::tokenizer
