// Config JSON builders shared by the model tests.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace laya::model::testing {

// ModernBERT-large encoder/config.json (the real file's keys and values).
inline nlohmann::json english_encoder() {
  return {{"architectures", {"ModernBertForMaskedLM"}}, {"attention_bias", false}, {"global_attn_every_n_layers", 3},
          {"global_rope_theta", 160000.0}, {"hidden_activation", "gelu"}, {"hidden_size", 1024},
          {"intermediate_size", 2624}, {"layer_norm_eps", 1e-5}, {"local_attention", 128},
          {"local_rope_theta", 10000.0}, {"max_position_embeddings", 8192}, {"mlp_bias", false},
          {"model_type", "modernbert"}, {"norm_bias", false}, {"norm_eps", 1e-5}, {"num_attention_heads", 16},
          {"num_hidden_layers", 28}, {"vocab_size", 50368}};
}

// mmBERT-base in the transformers-5 spelling.
inline nlohmann::json multilingual_encoder() {
  nlohmann::json types = nlohmann::json::array();
  for (int i = 0; i < 22; ++i) types.push_back(i % 3 == 0 ? "full_attention" : "sliding_attention");
  return {{"model_type", "modernbert"}, {"hidden_size", 768}, {"intermediate_size", 1152}, {"num_attention_heads", 12},
          {"num_hidden_layers", 22}, {"vocab_size", 256000}, {"local_attention", 128}, {"layer_types", types},
          {"rope_parameters", {{"full_attention", {{"rope_theta", 160000.0}, {"rope_type", "default"}}},
                               {"sliding_attention", {{"rope_theta", 160000.0}, {"rope_type", "default"}}}}}};
}

inline nlohmann::json english_agent() {
  return {{"encoder", "answerdotai/ModernBERT-large"}, {"head_layers", 2}, {"max_len", 512}, {"head_max_len", 192},
          {"max_prefixes", 6}, {"act_costs", {{"escalate", 0.5}}}, {"cost_wrong_act", 3.0}, {"amp_dtype", "bf16"},
          {"model_name", "rl-agent"},
          {"temperature", {1.6369030475616455, 1.2514300346374512, 1.983399510383606}},
          {"temperature_by_options", {{"choice:3-5", 1.7601518630981445}, {"choice:6-10", 1.0000158548355103},
                                      {"score:3-5", 1.2514300346374512}, {"noul:2", 1.983399510383606},
                                      {"choice:11+", 0.10058280825614929}, {"choice:2", 1.9063563346862793}}}};
}

inline nlohmann::json multilingual_agent() {
  auto a = english_agent();
  a["encoder"] = "jhu-clsp/mmBERT-base";
  a["max_len"] = 1024;
  a["head_max_len"] = 256;
  a["temperature"] = {1.0, 1.0, 1.0};
  a["temperature_by_options"] = nlohmann::json::object();
  return a;
}

}  // namespace laya::model::testing
