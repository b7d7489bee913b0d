// Open-addressing hash tables for the tokenizer's hot lookups (string -> id, id pair -> merge).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace laya::tokenizer {

inline uint64_t hash_bytes(std::string_view s) noexcept {
  // FNV-1a over 8-byte words, finished with a murmur mix: fast and good enough for vocabularies.
  uint64_t h = 0xcbf29ce484222325ull ^ s.size();
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h = (h ^ tail) * 0x100000001b3ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

// String -> int32 map; keys live in one arena. Insert overwrites (last value wins, like serde).
class StringIdMap {
 public:
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
  }
  void insert(std::string_view key, int32_t value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    Slot& s = find_slot(key);
    if (s.len == kEmpty) {
      s.off = static_cast<uint32_t>(arena_.size());
      s.len = static_cast<uint32_t>(key.size());
      arena_.append(key);
      ++size_;
    }
    s.value = value;
  }
  const int32_t* find(std::string_view key) const noexcept {
    if (slots_.empty()) return nullptr;
    std::size_t i = hash_bytes(key) & mask_;
    while (true) {
      const Slot& s = slots_[i];
      if (s.len == kEmpty) return nullptr;
      if (s.len == key.size() && std::memcmp(arena_.data() + s.off, key.data(), key.size()) == 0) return &s.value;
      i = (i + 1) & mask_;
    }
  }
  std::size_t size() const noexcept { return size_; }

 private:
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  struct Slot {
    uint32_t off = 0;
    uint32_t len = kEmpty;
    int32_t value = 0;
  };
  Slot& find_slot(std::string_view key) {
    std::size_t i = hash_bytes(key) & mask_;
    while (true) {
      Slot& s = slots_[i];
      if (s.len == kEmpty) return s;
      if (s.len == key.size() && std::memcmp(arena_.data() + s.off, key.data(), key.size()) == 0) return s;
      i = (i + 1) & mask_;
    }
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    std::size_t cap = old.empty() ? 16 : old.size() * 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    for (const Slot& s : old) {
      if (s.len == kEmpty) continue;
      std::size_t i = hash_bytes(std::string_view(arena_.data() + s.off, s.len)) & mask_;
      while (slots_[i].len != kEmpty) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::string arena_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

// (left id, right id) -> (rank, merged id). Key and value share one 16-byte slot: one cache miss.
class MergeMap {
 public:
  struct Value {
    uint32_t rank;
    int32_t id;
  };
  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{kEmpty, Value{}});
    mask_ = cap - 1;
  }
  void insert(int32_t a, int32_t b, Value v) {  // last insert wins, like Rust's HashMap
    const uint64_t k = key(a, b);
    std::size_t i = mix(k) & mask_;
    while (slots_[i].key != kEmpty && slots_[i].key != k) i = (i + 1) & mask_;
    slots_[i] = Slot{k, v};
  }
  const Value* find(int32_t a, int32_t b) const noexcept {
    const uint64_t k = key(a, b);
    std::size_t i = mix(k) & mask_;
    while (true) {
      const Slot& s = slots_[i];
      if (s.key == k) return &s.value;
      if (s.key == kEmpty) return nullptr;
      i = (i + 1) & mask_;
    }
  }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  struct Slot {
    uint64_t key;
    Value value;
  };
  static uint64_t key(int32_t a, int32_t b) noexcept { return (uint64_t(uint32_t(a)) << 32) | uint32_t(b); }
  static uint64_t mix(uint64_t k) noexcept {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
};

}  // namespace laya::tokenizer
