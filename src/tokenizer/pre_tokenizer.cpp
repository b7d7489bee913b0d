#include "tokenizer/components.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer {
namespace {

using unicode::Gpt2Class;

inline Gpt2Class cls_at(std::string_view s, std::size_t i, std::size_t& next) {
  const unsigned char b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    next = i + 1;
    // ASCII classes inline: the common case.
    if ((b | 0x20) >= 'a' && (b | 0x20) <= 'z') return Gpt2Class::letter;
    if (b >= '0' && b <= '9') return Gpt2Class::number;
    if (b == ' ' || (b >= 0x09 && b <= 0x0D)) return Gpt2Class::space;
    return Gpt2Class::other;
  }
  next = i;
  return unicode::gpt2_class(utf8::next(s, next));
}

// (offsets, is_match) pieces covering a string, as HF's Pattern::find_matches returns them.
struct Match {
  uint32_t start, end;
  bool is_match;
};

void literal_matches(std::string_view s, std::string_view pat, std::vector<Match>& out) {
  out.clear();
  if (pat.empty()) {
    out.push_back({0, uint32_t(s.size()), false});
    return;
  }
  std::size_t prev = 0, pos = 0;
  while ((pos = s.find(pat, pos)) != std::string_view::npos) {
    if (pos > prev) out.push_back({uint32_t(prev), uint32_t(pos), false});
    out.push_back({uint32_t(pos), uint32_t(pos + pat.size()), true});
    pos += pat.size();
    prev = pos;
  }
  if (prev < s.size()) out.push_back({uint32_t(prev), uint32_t(s.size()), false});
}

void regex_matches(std::string_view s, std::vector<Match>& out) {
  out.clear();
  std::vector<uint32_t> ends;
  gpt2_split(s, ends);
  uint32_t prev = 0;
  for (uint32_t e : ends) {
    out.push_back({prev, e, true});
    prev = e;
  }
}

// HF NormalizedString::split: turns matches into the kept (start, end) ranges.
void apply_behavior(const std::vector<Match>& m, SplitBehavior behavior, std::vector<std::pair<uint32_t, uint32_t>>& out) {
  out.clear();
  switch (behavior) {
    case SplitBehavior::isolated:
      for (const Match& x : m) out.emplace_back(x.start, x.end);
      break;
    case SplitBehavior::removed:
      for (const Match& x : m)
        if (!x.is_match) out.emplace_back(x.start, x.end);
      break;
    case SplitBehavior::contiguous: {
      bool prev_match = false;
      for (const Match& x : m) {
        if (x.is_match && prev_match && !out.empty()) out.back().second = x.end;
        else out.emplace_back(x.start, x.end);
        prev_match = x.is_match;
      }
      break;
    }
    case SplitBehavior::merged_with_previous: {
      // A match joins the text piece before it; consecutive matches stay apart.
      bool prev_match = true;
      for (const Match& x : m) {
        if (x.is_match && !prev_match && !out.empty()) out.back().second = x.end;
        else out.emplace_back(x.start, x.end);
        prev_match = x.is_match;
      }
      break;
    }
    case SplitBehavior::merged_with_next: {
      // A match starts a piece that takes the text after it.
      bool prev_match = false;
      for (const Match& x : m) {
        if (!x.is_match && prev_match && !out.empty()) out.back().second = x.end;
        else out.emplace_back(x.start, x.end);
        prev_match = x.is_match;
      }
      break;
    }
  }
}

// Applies the GPT-2 byte-to-unicode mapping to bytes (for byte-level pieces that a later stage
// must see as text).
void append_byte_mapped(std::string_view bytes, std::string& out) {
  const auto& map = byte_to_unicode();
  for (unsigned char b : bytes) utf8::append(out, map[b]);
}

}  // namespace

void gpt2_split(std::string_view s, std::vector<uint32_t>& ends) {
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    const char c = s[i];
    // 's|'t|'re|'ve|'m|'ll|'d
    if (c == '\'' && i + 1 < n) {
      const char d = s[i + 1];
      if (d == 's' || d == 't' || d == 'm' || d == 'd') {
        i += 2;
        ends.push_back(uint32_t(i));
        continue;
      }
      if (i + 2 < n && ((d == 'r' && s[i + 2] == 'e') || (d == 'v' && s[i + 2] == 'e') || (d == 'l' && s[i + 2] == 'l'))) {
        i += 3;
        ends.push_back(uint32_t(i));
        continue;
      }
    }
    std::size_t j;
    Gpt2Class k = cls_at(s, i, j);
    std::size_t start_class_at = i;
    if (c == ' ' && j < n) {
      // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`: an optional space before a non-space run.
      std::size_t j2;
      const Gpt2Class k2 = cls_at(s, j, j2);
      if (k2 != Gpt2Class::space) {
        k = k2;
        start_class_at = j;
        j = j2;
      }
    }
    (void)start_class_at;
    if (k == Gpt2Class::space) {
      // \s+(?!\S) | \s+ : a whitespace run; unless it ends the text, leave its last character to
      // the next match (when the run has more than one character).
      std::size_t last_start = i, e = j;
      while (e < n) {
        std::size_t e2;
        if (cls_at(s, e, e2) != Gpt2Class::space) break;
        last_start = e;
        e = e2;
      }
      if (e < n && last_start > i) e = last_start;
      ends.push_back(uint32_t(e));
      i = e;
      continue;
    }
    // A run of the same class.
    std::size_t e = j;
    while (e < n) {
      std::size_t e2;
      if (cls_at(s, e, e2) != k) break;
      e = e2;
    }
    ends.push_back(uint32_t(e));
    i = e;
  }
}

void PreTokenizer::apply(const PieceList& in, PieceList& out) const {
  out.clear();
  if (kind == Kind::sequence) {
    PieceList a = in, b;
    for (const PreTokenizer& p : children) {
      p.apply(a, b);
      std::swap(a, b);
    }
    out = std::move(a);
    return;
  }
  std::vector<Match> matches;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  std::string mapped;
  for (const Piece& piece : in.pieces) {
    std::string_view text(in.text.data() + piece.off, piece.len);
    if (piece.byte_level) {  // a byte-level stage before this one: this stage sees mapped text
      mapped.clear();
      append_byte_mapped(text, mapped);
      text = mapped;
    }
    const uint32_t base = uint32_t(out.text.size());
    bool byte_level_out = false;
    switch (kind) {
      case Kind::byte_level: {
        if (add_prefix_space && (text.empty() || text[0] != ' ')) out.text.push_back(' ');
        out.text.append(text);
        const std::string_view t(out.text.data() + base, out.text.size() - base);
        if (use_regex) {
          regex_matches(t, matches);
          apply_behavior(matches, SplitBehavior::isolated, ranges);
        } else {
          ranges.assign(1, {0, uint32_t(t.size())});
        }
        byte_level_out = true;
        break;
      }
      case Kind::metaspace: {
        std::string& o = out.text;
        const bool starts = text.substr(0, 1) == " " || text.substr(0, replacement.size()) == replacement;
        const bool prepend = !starts && (prepend_scheme == Prepend::always ||
                                         (prepend_scheme == Prepend::first && piece.at_origin));
        if (prepend) o.append(replacement);
        for (char ch : text) {
          if (ch == ' ') o.append(replacement);
          else o.push_back(ch);
        }
        const std::string_view t(o.data() + base, o.size() - base);
        if (split) {
          literal_matches(t, replacement, matches);
          apply_behavior(matches, SplitBehavior::merged_with_next, ranges);
        } else {
          ranges.assign(1, {0, uint32_t(t.size())});
        }
        break;
      }
      case Kind::split: {
        out.text.append(text);
        const std::string_view t(out.text.data() + base, out.text.size() - base);
        if (gpt2_regex) regex_matches(t, matches);
        else literal_matches(t, pattern, matches);
        if (invert)
          for (Match& m : matches) m.is_match = !m.is_match;
        apply_behavior(matches, behavior, ranges);
        break;
      }
      case Kind::sequence:
        break;
    }
    bool first = true;
    for (const auto& [s, e] : ranges) {
      if (e <= s) continue;  // HF drops empty splits
      out.pieces.push_back(Piece{base + s, e - s, byte_level_out, piece.at_origin && first && s == 0});
      first = false;
    }
  }
}

}  // namespace laya::tokenizer
