#include <algorithm>
#include <atomic>
#include <cstdio>
#include <unordered_map>

#include "laya/errors.h"
#include "tokenizer/components.h"
#include "tokenizer/utf8.h"

namespace laya::tokenizer {

const std::array<char32_t, 256>& byte_to_unicode() {
  static const std::array<char32_t, 256> map = [] {
    std::array<char32_t, 256> m{};
    std::array<bool, 256> direct{};
    for (int b = '!'; b <= '~'; ++b) direct[b] = true;
    for (int b = 0xA1; b <= 0xAC; ++b) direct[b] = true;
    for (int b = 0xAE; b <= 0xFF; ++b) direct[b] = true;
    char32_t n = 0;
    for (int b = 0; b < 256; ++b) m[b] = direct[b] ? char32_t(b) : char32_t(256 + n++);
    return m;
  }();
  return map;
}

int byte_from_unicode(char32_t c) {
  static const std::unordered_map<char32_t, int> inv = [] {
    std::unordered_map<char32_t, int> m;
    const auto& f = byte_to_unicode();
    for (int b = 0; b < 256; ++b) m[f[b]] = b;
    return m;
  }();
  auto it = inv.find(c);
  return it == inv.end() ? -1 : it->second;
}

void Bpe::finish_load() {
  plain_chars_ = continuing_subword_prefix.empty() && end_of_word_suffix.empty();
  const auto& map = byte_to_unicode();
  for (int b = 0; b < 256; ++b) {
    std::string s;
    utf8::append(s, map[b]);
    const int32_t* id = vocab.find(s);
    byte_level_id_[b] = id ? *id : -1;
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    id = vocab.find(hex);
    fallback_id_[b] = id ? *id : -1;
    if (b < 128) {
      const char ch = char(b);
      id = vocab.find(std::string_view(&ch, 1));
      ascii_id_[b] = id ? *id : -1;
    }
  }
  static std::atomic<uint64_t> next_serial{1};
  serial = next_serial++;
}

namespace {

// Per-thread cache of tokenized words (like HF's word cache, but lock-free: one per thread).
struct WordCache {
  uint64_t owner = 0;
  std::unordered_map<std::string, std::vector<int32_t>> map;
};
constexpr std::size_t kCacheMaxWord = 64;      // bytes; longer words are not cached
constexpr std::size_t kCacheMaxEntries = 4096;  // cleared when full: about 1 MB per thread at most

WordCache& cache_for(uint64_t serial) {
  thread_local std::array<WordCache, 4> caches;
  thread_local unsigned victim = 0;
  for (WordCache& c : caches)
    if (c.owner == serial) return c;
  WordCache& c = caches[victim++ % caches.size()];
  c.owner = serial;
  c.map.clear();
  return c;
}

struct Symbol {
  int32_t id;
  int32_t prev, next;
};
struct QueueEntry {
  uint32_t rank;
  uint32_t pos;
  int32_t new_id;
  bool operator>(const QueueEntry& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

void Bpe::tokenize(std::string_view word, bool byte_level, std::vector<int32_t>& out) const {
  if (word.empty()) return;
  if (ignore_merges) {
    std::string mapped_word;
    if (byte_level)
      for (unsigned char b : word) utf8::append(mapped_word, byte_to_unicode()[b]);
    if (const int32_t* id = vocab.find(byte_level ? std::string_view(mapped_word) : word)) {
      out.push_back(*id);
      return;
    }
  }
  if (word.size() > kCacheMaxWord) {
    tokenize_uncached(word, byte_level, out);
    return;
  }
  WordCache& cache = cache_for(serial * 2 + (byte_level ? 1 : 0));
  std::string key(word);
  auto it = cache.map.find(key);
  if (it != cache.map.end()) {
    out.insert(out.end(), it->second.begin(), it->second.end());
    return;
  }
  const std::size_t before = out.size();
  tokenize_uncached(word, byte_level, out);
  if (cache.map.size() >= kCacheMaxEntries) cache.map.clear();
  cache.map.emplace(std::move(key), std::vector<int32_t>(out.begin() + long(before), out.end()));
}

void Bpe::tokenize_uncached(std::string_view word, bool byte_level, std::vector<int32_t>& out) const {
  thread_local std::vector<int32_t> ids;
  thread_local std::string mapped, piece;
  ids.clear();
  if (byte_level) {
    bool ok = plain_chars_;
    if (ok) {
      for (unsigned char b : word) {
        const int32_t id = byte_level_id_[b];
        if (id < 0) {
          ok = false;
          break;
        }
        ids.push_back(id);
      }
    }
    if (!ok) {  // unusual vocabulary: run the general path on the mapped text
      mapped.clear();
      for (unsigned char b : word) utf8::append(mapped, byte_to_unicode()[b]);
      if (ignore_merges) {
        if (const int32_t* id = vocab.find(mapped)) {
          out.push_back(*id);
          return;
        }
      }
      std::string copy = mapped;
      tokenize_uncached(copy, false, out);
      return;
    }
  } else {
    // HF BPE::merge_word: one symbol per character (with prefix/suffix), byte fallback, unk.
    std::optional<int32_t> unk_id;
    if (unk_token) {
      if (const int32_t* u = vocab.find(*unk_token)) unk_id = *u;
    }
    bool pending_unk = false;
    std::size_t i = 0;
    const std::size_t n = word.size();
    while (i < n) {
      const std::size_t start = i;
      const unsigned char b = static_cast<unsigned char>(word[i]);
      i += utf8::seq_len(b);
      const bool is_first = start == 0, is_last = i >= n;
      int32_t id = -1;
      std::string_view ch = word.substr(start, i - start);
      std::string_view s = ch;
      if (plain_chars_) {
        if (b < 0x80) {
          id = ascii_id_[b];
        } else if (const int32_t* f = vocab.find(ch)) {
          id = *f;
        }
      } else {
        piece.clear();
        if (!is_first) piece += continuing_subword_prefix;
        piece.append(ch);
        if (is_last) piece += end_of_word_suffix;
        s = piece;
        if (const int32_t* f = vocab.find(piece)) id = *f;
      }
      if (id >= 0) {
        if (pending_unk) {
          ids.push_back(*unk_id);
          pending_unk = false;
        }
        ids.push_back(id);
        continue;
      }
      if (byte_fallback) {
        bool all = true;
        for (unsigned char x : s)
          if (fallback_id_[x] < 0) all = false;
        if (all) {
          // HF pushes the bytes without flushing a pending unk first.
          for (unsigned char x : s) ids.push_back(fallback_id_[x]);
          continue;
        }
      }
      if (unk_token) {
        LAYA_REQUIRE(unk_id.has_value(), ErrorKind::invalid_checkpoint, "tokenizer.json: unk_token {:?} is not in the vocabulary", *unk_token);
        if (pending_unk && !fuse_unk) ids.push_back(*unk_id);
        pending_unk = true;
      }
    }
    if (pending_unk) ids.push_back(*unk_id);
  }
  merge_all(ids);
  out.insert(out.end(), ids.begin(), ids.end());
}

void Bpe::merge_all(std::vector<int32_t>& ids) const {
  const std::size_t n = ids.size();
  if (n < 2) return;
  thread_local std::vector<Symbol> sym;
  thread_local std::vector<QueueEntry> heap;
  sym.resize(n);
  heap.clear();
  for (std::size_t i = 0; i < n; ++i) sym[i] = Symbol{ids[i], int32_t(i) - 1, i + 1 < n ? int32_t(i + 1) : -1};
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (const MergeMap::Value* m = merges.find(ids[i], ids[i + 1])) heap.push_back({m->rank, uint32_t(i), m->id});
  }
  // A min-heap on (rank, pos), built in O(n): long words stay near-linear.
  const auto cmp = std::greater<QueueEntry>{};
  std::make_heap(heap.begin(), heap.end(), cmp);
  auto pop = [&] {
    std::pop_heap(heap.begin(), heap.end(), cmp);
    const QueueEntry e = heap.back();
    heap.pop_back();
    return e;
  };
  auto push = [&](QueueEntry e) {
    heap.push_back(e);
    std::push_heap(heap.begin(), heap.end(), cmp);
  };
  // The same loop as HF's Word::merge_all, including its staleness test (compares the merged id).
  while (!heap.empty()) {
    const QueueEntry top = pop();
    Symbol& cur = sym[top.pos];
    if (cur.id < 0) continue;  // removed
    if (cur.next < 0) continue;
    const int32_t next_pos = cur.next;
    const Symbol right = sym[next_pos];
    const MergeMap::Value* m = merges.find(cur.id, right.id);
    if (!m || m->id != top.new_id) continue;
    cur.id = top.new_id;
    cur.next = right.next;
    sym[next_pos].id = -1;
    if (right.next >= 0) sym[right.next].prev = int32_t(top.pos);
    if (cur.prev >= 0) {
      if (const MergeMap::Value* p = merges.find(sym[cur.prev].id, cur.id)) push({p->rank, uint32_t(cur.prev), p->id});
    }
    if (cur.next >= 0) {
      if (const MergeMap::Value* p = merges.find(cur.id, sym[cur.next].id)) push({p->rank, top.pos, p->id});
    }
  }
  std::size_t w = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (sym[i].id >= 0) ids[w++] = sym[i].id;
  ids.resize(w);
}

}  // namespace laya::tokenizer
