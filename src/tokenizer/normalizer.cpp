#include "tokenizer/components.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer {

void Normalizer::apply(std::string_view in, std::string& out) const {
  out.clear();
  switch (kind) {
    case Kind::unicode:
      unicode::normalize(in, form, out);
      return;
    case Kind::replace: {
      if (pattern.empty()) {
        out.append(in);
        return;
      }
      std::size_t pos = 0;
      while (true) {
        const std::size_t hit = in.find(pattern, pos);
        if (hit == std::string_view::npos) break;
        out.append(in.substr(pos, hit - pos));
        out.append(content);
        pos = hit + pattern.size();
      }
      out.append(in.substr(pos));
      return;
    }
    case Kind::prepend:
      if (!in.empty()) out.append(content);
      out.append(in);
      return;
    case Kind::strip: {
      std::size_t b = 0, e = in.size();
      if (strip_left) {
        while (b < e) {
          std::size_t i = b;
          if (!unicode::is_white_space(utf8::next(in, i))) break;
          b = i;
        }
      }
      if (strip_right) {
        while (e > b) {
          std::size_t s = e - 1;
          while (s > b && (static_cast<unsigned char>(in[s]) & 0xC0) == 0x80) --s;
          std::size_t i = s;
          if (!unicode::is_white_space(utf8::next(in, i))) break;
          e = s;
        }
      }
      out.append(in.substr(b, e - b));
      return;
    }
    case Kind::sequence: {
      std::string a(in), b;
      for (const Normalizer& n : children) {
        n.apply(a, b);
        a.swap(b);
      }
      out = std::move(a);
      return;
    }
  }
}

}  // namespace laya::tokenizer
