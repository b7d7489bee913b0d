// Building a backend by name, and loading a whole model directory (checkpoint, tokenizer, special
// tokens, backend) in one call — shared by `decide`, `bench` and `serve`.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

#include "checkpoint/checkpoint.h"
#include "engine/backend.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace laya::cli {

// options.backend: "cpu" -> the fp32 CPU backend; "cuda" -> the CUDA backend (when this binary was
// built with it). Anything else, or "cuda" in a CPU-only build: laya::Error(bad_request) saying so.
std::unique_ptr<engine::Backend> make_backend(const checkpoint::Checkpoint& ckpt, const engine::BackendOptions& options);

// Whether this binary contains the named backend.
bool has_backend(std::string_view name);

struct LoadedModel {
  std::filesystem::path dir;
  bool is_demo = false;  // `--model demo`: random weights, answers are meaningless
  std::optional<checkpoint::Checkpoint> checkpoint;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;
  tokenizer::SpecialTokens special;
  std::unique_ptr<engine::Backend> backend;  // null when load_model(..., with_backend=false)

  const model::ModelConfig& config() const { return checkpoint->config(); }
};

// `model_arg` is a checkpoint directory or "demo" (generated on first use). Opens and validates the
// checkpoint, loads its tokenizer and special tokens, and builds the backend named in `options`.
// Warnings of the checkpoint (clamped temperatures, the demo's random weights) go to the log.
LoadedModel load_model(std::string_view model_arg, const engine::BackendOptions& options, bool with_backend = true);

}  // namespace laya::cli
