#include "prompt/assets.h"

#include "laya/errors.h"
#include "model/config_parse.h"

namespace laya::prompt {

PromptAssets load_prompt_assets(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) LAYA_FAIL(ErrorKind::io, "model directory {} does not exist", dir.string());
  PromptAssets a;
  fs::path agent = dir / "rl_agent_config.json", encoder = dir / "encoder" / "config.json";
  fs::path tok_json = dir / "tokenizer" / "tokenizer.json", tok_cfg = dir / "tokenizer" / "tokenizer_config.json";
  for (const auto& p : {agent, encoder, tok_json, tok_cfg})
    if (!fs::exists(p)) LAYA_FAIL(ErrorKind::invalid_checkpoint, "{} is missing", p.string());
  a.config = model::parse_model_config(encoder, agent);
  a.tokenizer = tokenizer::Tokenizer::from_file(tok_json);
  a.special = tokenizer::load_special_tokens(tok_cfg, *a.tokenizer);
  return a;
}

}  // namespace laya::prompt
