#include <algorithm>

#include "tokenizer/components.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer {

int32_t TokenTrie::child(int32_t node, unsigned char b) const {
  const auto& nx = nodes_[std::size_t(node)].next;
  auto it = std::lower_bound(nx.begin(), nx.end(), b, [](const auto& p, unsigned char x) { return p.first < x; });
  return it != nx.end() && it->first == b ? it->second : -1;
}

void TokenTrie::add(std::string_view pattern, int32_t value) {
  if (pattern.empty()) return;
  int32_t node = 0;
  for (unsigned char b : pattern) {
    int32_t c = child(node, b);
    if (c < 0) {
      c = int32_t(nodes_.size());
      nodes_.emplace_back();
      auto& nx = nodes_[std::size_t(node)].next;
      auto it = std::lower_bound(nx.begin(), nx.end(), b, [](const auto& p, unsigned char x) { return p.first < x; });
      nx.insert(it, {b, c});
    }
    node = c;
  }
  // The first pattern given keeps a duplicate (aho-corasick reports the lowest pattern index).
  if (nodes_[std::size_t(node)].value < 0) nodes_[std::size_t(node)].value = value;
  first_byte_[static_cast<unsigned char>(pattern[0])] = true;
}

bool TokenTrie::find(std::string_view s, std::size_t from, std::size_t& start, std::size_t& end, int32_t& value) const {
  const std::size_t n = s.size();
  for (std::size_t i = from; i < n; ++i) {
    if (!first_byte_[static_cast<unsigned char>(s[i])]) continue;
    int32_t node = 0;
    int32_t best = -1;
    std::size_t best_end = 0;
    for (std::size_t j = i; j < n; ++j) {
      node = child(node, static_cast<unsigned char>(s[j]));
      if (node < 0) break;
      if (nodes_[std::size_t(node)].value >= 0) {
        best = nodes_[std::size_t(node)].value;
        best_end = j + 1;
      }
    }
    if (best >= 0) {
      start = i;
      end = best_end;
      value = best;
      return true;
    }
  }
  return false;
}

namespace {

// Rust regex `\w$` on s[..pos] / `^\w` on s[pos..].
bool ends_with_word(std::string_view s, std::size_t pos) {
  if (pos == 0) return false;
  std::size_t b = pos - 1;
  while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
  std::size_t i = b;
  return unicode::is_word_char(utf8::next(s, i));
}
bool starts_with_word(std::string_view s, std::size_t pos) {
  if (pos >= s.size()) return false;
  return unicode::is_word_char(utf8::next(s, pos));
}

}  // namespace

void AddedVocab::build(const Normalizer* normalizer) {
  // HF: special tokens first, then the others, each in the order given; tokens split between a
  // trie on raw text (normalized=false) and one on normalized text.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i].special) order.push_back(i);
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (!tokens[i].special) order.push_back(i);
  std::string norm;
  for (std::size_t i : order) {
    const AddedToken& t = tokens[i];
    if (t.content.empty()) continue;
    if (t.normalized) {
      if (normalizer) {
        normalizer->apply(t.content, norm);
        normalized_trie.add(norm, int32_t(i));
      } else {
        normalized_trie.add(t.content, int32_t(i));
      }
    } else {
      raw_trie.add(t.content, int32_t(i));
    }
  }
  for (const AddedToken& t : tokens)
    if (t.special) special_ids.push_back(t.id);
  std::sort(special_ids.begin(), special_ids.end());
}

bool AddedVocab::is_special(int32_t id) const { return std::binary_search(special_ids.begin(), special_ids.end(), id); }

void AddedVocab::find_matches(std::string_view s, const TokenTrie& trie, std::vector<Segment>& out) const {
  out.clear();
  if (s.empty()) return;
  if (trie.empty()) {
    out.push_back({0, s.size(), -1});
    return;
  }
  std::size_t start_offset = 0;
  std::size_t search = 0;
  std::size_t mstart, mend;
  int32_t idx;
  while (search < s.size() && trie.find(s, search, mstart, mend, idx)) {
    search = mend;  // the matcher resumes after the raw match (not after stripped spaces)
    const AddedToken& t = tokens[std::size_t(idx)];
    std::size_t start = mstart, stop = mend;
    if (t.single_word) {
      const bool start_space = start == 0 || !ends_with_word(s, start);
      const bool stop_space = stop == s.size() || !starts_with_word(s, stop);
      if (!start_space || !stop_space) continue;
    }
    if (t.lstrip) {
      std::size_t ns = start;
      while (ns > 0) {
        std::size_t b = ns - 1;
        while (b > 0 && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
        std::size_t i = b;
        if (!unicode::is_white_space(utf8::next(s, i))) break;
        ns = b;
      }
      start = std::max(ns, start_offset);
    }
    if (t.rstrip) {
      while (stop < s.size()) {
        std::size_t i = stop;
        if (!unicode::is_white_space(utf8::next(s, i))) break;
        stop = i;
      }
    }
    if (start_offset < start) out.push_back({start_offset, start, -1});
    out.push_back({start, stop, t.id});
    start_offset = stop;
  }
  if (start_offset != s.size()) out.push_back({start_offset, s.size(), -1});
}

}  // namespace laya::tokenizer
