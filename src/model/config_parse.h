// Parsing a checkpoint's two config files into one typed ModelConfig.
//
// encoder/config.json is read the way transformers 5.17 reads a ModernBertConfig (the version the
// official laya 0.3.20 runs with): `layer_types` wins over `global_attn_every_n_layers`, and
// `rope_parameters.{full_attention,sliding_attention}.rope_theta` win over
// `global_rope_theta`/`local_rope_theta`; missing keys take ModernBertConfig's defaults.
// rl_agent_config.json is read the way laya.Agent reads it (defaults of cfg.get(...), temperatures
// clamped by laya.common.clamp_temperature, raw values kept).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/config.h"

namespace laya::model {

// The largest sequence length the engine accepts (max_len); beyond ModernBERT's 8192 positions the
// RoPE tables of the reference are not defined.
inline constexpr int32_t kMaxSupportedLen = 8192;

// Throws laya::Error(ErrorKind::invalid_checkpoint) naming the file and the field on any invalid or
// unsupported value. Non-fatal findings (clamped temperatures, defaulted keys) are logged with
// spdlog (warn) and appended to *warnings when given.
ModelConfig parse_model_config(const std::filesystem::path& encoder_config_json,
                               const std::filesystem::path& agent_config_json,
                               std::vector<std::string>* warnings = nullptr);

// The same, from JSON text already in memory (file names are used only in messages).
ModelConfig parse_model_config_text(const std::string& encoder_json, const std::string& encoder_name,
                                    const std::string& agent_json, const std::string& agent_name,
                                    std::vector<std::string>* warnings = nullptr, bool log_warnings = true);

// laya.common.clamp_temperature on an already-converted number: NaN/Inf -> 1.0, else [0.5, 5].
double clamp_temperature(double t);

}  // namespace laya::model
