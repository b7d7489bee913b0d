// The special tokens a model uses (cls/sep/pad/mask/unk), resolved from tokenizer_config.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "tokenizer/tokenizer.h"

namespace laya::tokenizer {

struct SpecialTokens {
  std::string mask_token;  // its text ("[MASK]", "<mask>"); replaced by a space in user text
  int32_t cls_id = -1, sep_id = -1, pad_id = -1, mask_id = -1, unk_id = -1;
};

// Resolves cls/sep/pad/mask/unk tokens the way transformers' PreTrainedTokenizerFast does from
// tokenizer_config.json (string or {"content": ...} forms; also special_tokens_map.json beside it
// if present; for a token named nowhere, -1). Throws laya::Error(invalid_checkpoint) for a named
// token that the tokenizer does not know, and laya::Error(io) for an unreadable file.
SpecialTokens load_special_tokens(const std::filesystem::path& tokenizer_config_json, const Tokenizer& tok);

}  // namespace laya::tokenizer
