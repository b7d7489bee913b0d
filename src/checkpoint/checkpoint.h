// A Laya checkpoint directory, opened and fully validated.
//
// Layout (spec §7): rl_agent_config.json, model.safetensors, encoder/config.json,
// tokenizer/tokenizer.json, tokenizer/tokenizer_config.json. Checkpoint::open checks every file,
// both configs and the whole tensor inventory (missing, unexpected, mis-shaped and wrong-dtype
// tensors are collected and reported together, by name) and throws invalid_checkpoint with the whole
// list; a Checkpoint that exists is complete and consistent.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/safetensors.h"
#include "model/config.h"

namespace laya::checkpoint {

struct CheckpointPaths {
  std::filesystem::path dir;
  std::filesystem::path agent_config;      // rl_agent_config.json
  std::filesystem::path weights;           // model.safetensors
  std::filesystem::path tokenizer_json;    // tokenizer/tokenizer.json
  std::filesystem::path tokenizer_config;  // tokenizer/tokenizer_config.json
  std::filesystem::path encoder_config;    // encoder/config.json

  static CheckpointPaths in(const std::filesystem::path& dir);
};

// Everything wrong with a directory, without throwing (used by `check` to list every problem).
struct Validation {
  std::vector<std::string> problems;  // each names the file and the tensor or field
  std::vector<std::string> warnings;  // clamped temperatures, defaulted keys
};

class Checkpoint {
 public:
  static Checkpoint open(const std::filesystem::path& dir);

  // Validates like open() but collects problems instead of throwing; on success (no problems) the
  // checkpoint is stored in *out when out != nullptr.
  static Validation validate(const std::filesystem::path& dir, Checkpoint* out = nullptr);

  const model::ModelConfig& config() const { return config_; }
  const SafetensorsFile& weights() const { return weights_; }
  const CheckpointPaths& paths() const { return paths_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // "english" | "typed-decisions" | "multilingual" | "tiny" | "custom" (by dims and lengths).
  std::string kind() const;
  // True when rl_agent_config.json carries the "synthetic" block written by `laya-engine synth`
  // (random weights: answers are meaningless).
  bool is_synthetic() const { return synthetic_; }
  int64_t parameter_count() const;

  Checkpoint(Checkpoint&&) noexcept = default;
  Checkpoint& operator=(Checkpoint&&) noexcept = default;

 Checkpoint() = default;  // empty; filled by open()/validate()

 private:

  CheckpointPaths paths_;
  model::ModelConfig config_;
  SafetensorsFile weights_;
  std::vector<std::string> warnings_;
  bool synthetic_ = false;
  bool tiny_ = false;
};

// Names the kind of a config alone (same rules as Checkpoint::kind()).
std::string checkpoint_kind(const model::ModelConfig& config, bool synthetic_tiny = false);

}  // namespace laya::checkpoint
