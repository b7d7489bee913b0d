// A Hugging Face `tokenizer.json` reader with exact `tokenizers` encode parity.
//
// Pipeline (as HF runs it for encode(text, add_special_tokens=False)):
//   added tokens matched in the raw text -> normalizer -> added tokens (normalized=true) matched in
//   the normalized pieces -> pre-tokenizer -> BPE model on each pre-token.
// The object is immutable after load; every const method is safe to call from many threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace laya::tokenizer {

class TokenizerImpl;

class Tokenizer {
 public:
  // Loads a tokenizer.json (or a folder containing one). Throws laya::Error(io) when the file cannot
  // be read and laya::Error(invalid_checkpoint) naming the field for unsupported/invalid content.
  static std::shared_ptr<const Tokenizer> from_file(const std::filesystem::path& tokenizer_json);
  // Same, from the JSON text itself (`origin` names it in error messages).
  static std::shared_ptr<const Tokenizer> from_json(std::string_view json, std::string_view origin = "tokenizer.json");

  // HF encode(text, add_special_tokens=False).ids. Invalid UTF-8 ->
  // laya::Error(bad_request, "... invalid UTF-8 at byte N").
  std::vector<int32_t> encode(std::string_view utf8) const;
  void encode_append(std::string_view utf8, std::vector<int32_t>& out) const;

  std::optional<int32_t> token_to_id(std::string_view token) const;  // added tokens, then vocab
  std::string id_to_token(int32_t id) const;                         // "" for an unknown id
  // HF decode(ids, skip_special_tokens). Unknown ids are skipped like HF does.
  std::string decode(std::span<const int32_t> ids, bool skip_special_tokens = false) const;
  int32_t vocab_size() const;  // largest id + 1 over vocab and added tokens

  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

 private:
  explicit Tokenizer(std::unique_ptr<TokenizerImpl> impl);
  std::unique_ptr<TokenizerImpl> impl_;
};

}  // namespace laya::tokenizer
