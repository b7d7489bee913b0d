// The tokenizer's state after load (internal).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/components.h"

namespace laya::tokenizer {

class TokenizerImpl {
 public:
  std::optional<Normalizer> normalizer;
  std::optional<PreTokenizer> pre_tokenizer;
  std::optional<Decoder> decoder;
  Bpe bpe;
  AddedVocab added;
  std::unordered_map<int32_t, std::size_t> added_by_id;  // id -> index in added.tokens
  int32_t vocab_size = 0;
  bool fast_byte_level = false;  // pre_tokenizer is exactly ByteLevel(use_regex, no prefix space)

  void finish_load();
  void encode(std::string_view text, std::vector<int32_t>& out) const;

 private:
  void encode_piece(std::string_view text, bool at_origin, std::vector<int32_t>& out) const;
};

// Parses tokenizer.json text into `impl` (throws laya::Error(invalid_checkpoint) naming the field).
void load_tokenizer_json(std::string_view json, std::string_view origin, TokenizerImpl& impl);

}  // namespace laya::tokenizer
