// Internal building blocks of the tokenizer pipeline (not part of the public API).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/string_map.h"
#include "tokenizer/unicode.h"

namespace laya::tokenizer {

// ---------------------------------------------------------------- normalizers
struct Normalizer {
  enum class Kind { unicode, replace, prepend, strip, sequence };
  Kind kind = Kind::sequence;
  unicode::Form form = unicode::Form::nfc;  // unicode
  std::string pattern, content;             // replace (literal pattern), prepend (content)
  bool strip_left = false, strip_right = false;
  std::vector<Normalizer> children;  // sequence

  // Normalises `in` into `out` (cleared first).
  void apply(std::string_view in, std::string& out) const;
};

// ---------------------------------------------------------------- pre-tokenizers
// A piece of text after pre-tokenization. `byte_level` pieces hold raw bytes whose GPT-2 byte-to-
// unicode mapping is still to be applied (the BPE maps bytes to ids directly).
struct Piece {
  uint32_t off = 0, len = 0;  // into PieceList::text
  bool byte_level = false;
  bool at_origin = false;  // starts at offset 0 of the original input (Metaspace prepend "first")
};
struct PieceList {
  std::string text;
  std::vector<Piece> pieces;
  void clear() {
    text.clear();
    pieces.clear();
  }
};

enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

struct PreTokenizer {
  enum class Kind { byte_level, metaspace, split, sequence };
  Kind kind = Kind::sequence;
  // byte_level
  bool add_prefix_space = false, use_regex = true;
  // metaspace
  std::string replacement = "\xE2\x96\x81";
  enum class Prepend { always, first, never } prepend_scheme = Prepend::always;
  bool split = true;
  // split: a literal pattern, or the GPT-2 regex (gpt2_regex)
  std::string pattern;
  bool gpt2_regex = false;
  SplitBehavior behavior = SplitBehavior::isolated;
  bool invert = false;
  std::vector<PreTokenizer> children;

  void apply(const PieceList& in, PieceList& out) const;
};

// GPT-2 regex split of `s` into matches (byte offsets of ends), appended to `ends`.
void gpt2_split(std::string_view s, std::vector<uint32_t>& ends);

// ---------------------------------------------------------------- BPE
class Bpe {
 public:
  StringIdMap vocab;
  std::vector<std::string> vocab_r;  // by id (may have holes: empty)
  MergeMap merges;
  std::optional<std::string> unk_token;
  std::string continuing_subword_prefix, end_of_word_suffix;
  bool fuse_unk = false, byte_fallback = false, ignore_merges = false;
  uint64_t serial = 0;  // distinguishes instances in the per-thread word cache

  void finish_load();  // precomputes byte tables
  // Tokenizes one pre-token, appending ids.
  void tokenize(std::string_view word, bool byte_level, std::vector<int32_t>& out) const;

 private:
  void tokenize_uncached(std::string_view word, bool byte_level, std::vector<int32_t>& out) const;
  void merge_all(std::vector<int32_t>& ids) const;
  std::array<int32_t, 256> byte_level_id_{};   // id of the byte-level char of each byte, or -1
  std::array<int32_t, 256> fallback_id_{};     // id of <0xXX>, or -1
  std::array<int32_t, 128> ascii_id_{};        // id of an ASCII char token, or -1
  bool plain_chars_ = true;                     // no prefix/suffix decoration
};

// GPT-2 byte <-> unicode alphabet.
const std::array<char32_t, 256>& byte_to_unicode();
int byte_from_unicode(char32_t c);  // -1 when c is not in the alphabet

// ---------------------------------------------------------------- added tokens
struct AddedToken {
  std::string content;
  int32_t id = -1;
  bool single_word = false, lstrip = false, rstrip = false, normalized = true, special = false;
};

// Aho-Corasick-equivalent leftmost-longest matcher (a byte trie; patterns are short).
class TokenTrie {
 public:
  void add(std::string_view pattern, int32_t value);
  bool empty() const { return nodes_.size() <= 1; }
  // First match at or after `from` (leftmost start, then longest): start, end, value.
  bool find(std::string_view s, std::size_t from, std::size_t& start, std::size_t& end, int32_t& value) const;

 private:
  struct Node {
    std::vector<std::pair<unsigned char, int32_t>> next;  // sorted by byte
    int32_t value = -1;
  };
  int32_t child(int32_t node, unsigned char b) const;
  std::vector<Node> nodes_{Node{}};
  std::array<bool, 256> first_byte_{};
};

struct Segment {
  std::size_t start, end;
  int32_t id;  // -1: plain text
};

class AddedVocab {
 public:
  std::vector<AddedToken> tokens;  // by order of appearance in tokenizer.json
  StringIdMap content_to_id;
  std::vector<int32_t> special_ids;  // sorted
  TokenTrie raw_trie, normalized_trie;  // value = index into tokens

  void build(const Normalizer* normalizer);
  // HF AddedVocabulary::find_matches over `s` with one trie: splits covering s.
  void find_matches(std::string_view s, const TokenTrie& trie, std::vector<Segment>& out) const;
  bool is_special(int32_t id) const;
};

// ---------------------------------------------------------------- decoders
struct Decoder {
  enum class Kind { byte_level, metaspace, byte_fallback, fuse, strip, replace, sequence };
  Kind kind = Kind::sequence;
  std::string replacement = "\xE2\x96\x81";  // metaspace
  bool prepend = true;                        // metaspace: prepend_scheme != never
  std::string content;                        // strip/replace
  std::string pattern;                        // replace
  std::size_t start = 0, stop = 0;            // strip
  std::vector<Decoder> children;

  void apply(std::vector<std::string>& tokens) const;
};

}  // namespace laya::tokenizer
