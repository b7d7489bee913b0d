// The tensor inventory of a Laya checkpoint, derived from its ModelConfig (never hard-coded for one
// size): exact official names (as laya.common.DecisionModel.state_dict() spells them) and shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/config.h"

namespace laya::model {

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;

  int64_t numel() const {
    int64_t n = 1;
    for (auto d : shape) n *= d;
    return n;
  }
};

// Every tensor of model.safetensors in state_dict order (encoder, head, type_emb, scorer, act_head,
// temperature). English: 206 tensors, 421,293,830 elements.
std::vector<TensorSpec> expected_tensors(const ModelConfig& config);

// Total element count of expected_tensors(config).
int64_t expected_parameter_count(const ModelConfig& config);

namespace names {
std::string tok_embeddings();          // encoder.embeddings.tok_embeddings.weight
std::string emb_norm();                // encoder.embeddings.norm.weight
std::string attn_norm(int layer);      // encoder.layers.{i}.attn_norm.weight (layers >= 1 only)
std::string wqkv(int layer);           // encoder.layers.{i}.attn.Wqkv.weight
std::string attn_wo(int layer);        // encoder.layers.{i}.attn.Wo.weight
std::string mlp_norm(int layer);       // encoder.layers.{i}.mlp_norm.weight
std::string wi(int layer);             // encoder.layers.{i}.mlp.Wi.weight
std::string mlp_wo(int layer);         // encoder.layers.{i}.mlp.Wo.weight
std::string final_norm();              // encoder.final_norm.weight
std::string type_emb();                // type_emb.weight
std::string head_in_proj_w(int layer);   // head.layers.{l}.self_attn.in_proj_weight
std::string head_in_proj_b(int layer);   // head.layers.{l}.self_attn.in_proj_bias
std::string head_out_proj_w(int layer);  // head.layers.{l}.self_attn.out_proj.weight
std::string head_out_proj_b(int layer);
std::string head_linear1_w(int layer);   // head.layers.{l}.linear1.weight
std::string head_linear1_b(int layer);
std::string head_linear2_w(int layer);
std::string head_linear2_b(int layer);
std::string head_norm1_w(int layer);     // head.layers.{l}.norm1.weight
std::string head_norm1_b(int layer);
std::string head_norm2_w(int layer);
std::string head_norm2_b(int layer);
std::string scorer_norm_w();           // scorer.0.weight (LayerNorm)
std::string scorer_norm_b();
std::string scorer_fc1_w();            // scorer.1.weight
std::string scorer_fc1_b();
std::string scorer_fc2_w();            // scorer.3.weight
std::string scorer_fc2_b();
std::string act_fc1_w();               // act_head.0.weight
std::string act_fc1_b();
std::string act_fc2_w();               // act_head.2.weight
std::string act_fc2_b();
std::string temperature();             // temperature (FP32 buffer [3], unused by inference)
}  // namespace names

}  // namespace laya::model
