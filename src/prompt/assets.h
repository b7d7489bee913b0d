// What row building and decoding need from a checkpoint directory, without touching the weights:
// rl_agent_config.json (+ encoder/config.json), tokenizer/tokenizer.json and
// tokenizer/tokenizer_config.json. Used by `laya-engine pack` / `decode` and tests.
#pragma once

#include <filesystem>
#include <memory>

#include "model/config.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace laya::prompt {

struct PromptAssets {
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;
  tokenizer::SpecialTokens special;
  model::ModelConfig config;
};

// Throws laya::Error (io / invalid_checkpoint) naming the missing or invalid file.
PromptAssets load_prompt_assets(const std::filesystem::path& model_dir);

}  // namespace laya::prompt
