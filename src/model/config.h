// ModelConfig: one typed description of a Laya checkpoint, read from encoder/config.json
// (either ModernBERT or transformers-5 spelling) and rl_agent_config.json.
//
// Interface frozen for all modules; the parser lives in model/config.cpp (owned by the
// checkpoint/model module). Add fields if needed, do not rename.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace laya::model {

enum class QType : int32_t { choice = 0, score = 1, noul = 2 };

struct EncoderConfig {
  std::string model_type = "modernbert";
  int32_t vocab_size = 0;
  int32_t hidden = 0;           // d
  int32_t heads = 0;            // encoder attention heads (head_dim = hidden / heads, must be 64)
  int32_t head_dim = 64;
  int32_t intermediate = 0;     // GeGLU half width: Wi is [2*intermediate, hidden]
  int32_t layers = 0;
  double norm_eps = 1e-5;
  int32_t local_window = 128;   // local layers see keys with |i-j| <= local_window/2
  int32_t global_every = 3;     // layer i is global iff i % global_every == 0
  double global_theta = 160000.0;
  double local_theta = 10000.0;
  int32_t max_position_embeddings = 8192;
  std::vector<bool> layer_global;  // per layer, derived from layer_types or global_every

  bool is_global(int32_t layer) const { return layer_global.at(static_cast<size_t>(layer)); }
};

struct HeadConfig {
  int32_t layers = 2;        // nn.TransformerEncoderLayer count (head_layers)
  int32_t heads = 0;         // max(1, d / 64)
  int32_t ffn = 0;           // 4 * d
  int32_t act_hidden = 256;  // act_head.0 out features
  int32_t n_act = 2;         // len(act_costs) + 1
};

struct AgentConfig {
  std::string model_name;    // rl_agent_config.json "model_name"
  std::string encoder_name;  // rl_agent_config.json "encoder" (e.g. answerdotai/ModernBERT-large)
  std::string amp_dtype = "bf16";
  int32_t max_len = 512;
  int32_t head_max_len = 192;
  // Temperatures as applied: clamped to [0.5, 5]; non-numeric/NaN/Inf -> 1.0 (laya.common.clamp_temperature).
  std::array<double, 3> temperature{1.0, 1.0, 1.0};
  std::map<std::string, double> temperature_by_options;  // "choice:3-5" -> T (applied)
  // What the file said, for `check` and warnings (may hold NaN for non-numeric entries).
  std::array<double, 3> temperature_raw{1.0, 1.0, 1.0};
  std::map<std::string, double> temperature_by_options_raw;
  std::map<std::string, double> act_costs;
};

struct ModelConfig {
  EncoderConfig encoder;
  HeadConfig head;
  AgentConfig agent;

  int32_t hidden() const { return encoder.hidden; }
};

}  // namespace laya::model
