#include "model/inventory.h"

#include <gtest/gtest.h>

#include <set>

#include "config_test_util.h"
#include "model/config_parse.h"

namespace laya::model {
namespace {

using testing::english_agent;
using testing::english_encoder;
using testing::multilingual_agent;
using testing::multilingual_encoder;

ModelConfig parse(const nlohmann::json& e, const nlohmann::json& a) {
  return parse_model_config_text(e.dump(), "encoder/config.json", a.dump(), "rl_agent_config.json");
}

TEST(Inventory, EnglishHas206TensorsAnd421293830Elements) {
  auto c = parse(english_encoder(), english_agent());
  auto t = expected_tensors(c);
  EXPECT_EQ(t.size(), 206u);
  EXPECT_EQ(expected_parameter_count(c), 421'293'830);
}

TEST(Inventory, TypedDecisionsHasTheEnglishInventory) {
  auto a = english_agent();
  a["max_len"] = 1024;
  a["head_max_len"] = 256;
  auto c = parse(english_encoder(), a);
  EXPECT_EQ(expected_tensors(c).size(), 206u);
  EXPECT_EQ(expected_parameter_count(c), 421'293'830);
}

TEST(Inventory, MultilingualHas321908998Elements) {
  auto c = parse(multilingual_encoder(), multilingual_agent());
  EXPECT_EQ(expected_parameter_count(c), 321'908'998);
  EXPECT_EQ(expected_tensors(c).size(), 2u + 22 * 5 + 21 + 1 + 24 + 1 + 6 + 4 + 1);
}

TEST(Inventory, ExactNamesAndShapesOfTheOfficialFile) {
  auto c = parse(english_encoder(), english_agent());
  std::map<std::string, std::vector<int64_t>> m;
  for (const auto& s : expected_tensors(c)) EXPECT_TRUE(m.emplace(s.name, s.shape).second) << s.name;
  using V = std::vector<int64_t>;
  EXPECT_EQ(m.at("encoder.embeddings.tok_embeddings.weight"), (V{50368, 1024}));
  EXPECT_EQ(m.at("encoder.embeddings.norm.weight"), (V{1024}));
  EXPECT_EQ(m.count("encoder.layers.0.attn_norm.weight"), 0u);  // Identity in layer 0
  EXPECT_EQ(m.at("encoder.layers.1.attn_norm.weight"), (V{1024}));
  EXPECT_EQ(m.at("encoder.layers.27.attn_norm.weight"), (V{1024}));
  EXPECT_EQ(m.count("encoder.layers.28.attn.Wqkv.weight"), 0u);
  EXPECT_EQ(m.at("encoder.layers.0.attn.Wqkv.weight"), (V{3072, 1024}));
  EXPECT_EQ(m.at("encoder.layers.5.attn.Wo.weight"), (V{1024, 1024}));
  EXPECT_EQ(m.at("encoder.layers.5.mlp_norm.weight"), (V{1024}));
  EXPECT_EQ(m.at("encoder.layers.5.mlp.Wi.weight"), (V{5248, 1024}));
  EXPECT_EQ(m.at("encoder.layers.5.mlp.Wo.weight"), (V{1024, 2624}));
  EXPECT_EQ(m.at("encoder.final_norm.weight"), (V{1024}));
  EXPECT_EQ(m.at("type_emb.weight"), (V{3, 1024}));
  EXPECT_EQ(m.at("head.layers.1.self_attn.in_proj_weight"), (V{3072, 1024}));
  EXPECT_EQ(m.at("head.layers.1.self_attn.in_proj_bias"), (V{3072}));
  EXPECT_EQ(m.at("head.layers.0.self_attn.out_proj.weight"), (V{1024, 1024}));
  EXPECT_EQ(m.at("head.layers.0.self_attn.out_proj.bias"), (V{1024}));
  EXPECT_EQ(m.at("head.layers.0.linear1.weight"), (V{4096, 1024}));
  EXPECT_EQ(m.at("head.layers.0.linear1.bias"), (V{4096}));
  EXPECT_EQ(m.at("head.layers.0.linear2.weight"), (V{1024, 4096}));
  EXPECT_EQ(m.at("head.layers.0.linear2.bias"), (V{1024}));
  for (const char* n : {"norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"}) {
    EXPECT_EQ(m.at(std::string("head.layers.1.") + n), (V{1024})) << n;
  }
  EXPECT_EQ(m.count("head.layers.2.linear1.weight"), 0u);
  EXPECT_EQ(m.at("scorer.0.weight"), (V{1024}));
  EXPECT_EQ(m.at("scorer.0.bias"), (V{1024}));
  EXPECT_EQ(m.at("scorer.1.weight"), (V{1024, 1024}));
  EXPECT_EQ(m.at("scorer.1.bias"), (V{1024}));
  EXPECT_EQ(m.at("scorer.3.weight"), (V{1, 1024}));
  EXPECT_EQ(m.at("scorer.3.bias"), (V{1}));
  EXPECT_EQ(m.at("act_head.0.weight"), (V{256, 1028}));
  EXPECT_EQ(m.at("act_head.0.bias"), (V{256}));
  EXPECT_EQ(m.at("act_head.2.weight"), (V{2, 256}));
  EXPECT_EQ(m.at("act_head.2.bias"), (V{2}));
  EXPECT_EQ(m.at("temperature"), (V{3}));
}

TEST(Inventory, NameHelpersSpellTheOfficialNames) {
  EXPECT_EQ(names::tok_embeddings(), "encoder.embeddings.tok_embeddings.weight");
  EXPECT_EQ(names::emb_norm(), "encoder.embeddings.norm.weight");
  EXPECT_EQ(names::attn_norm(3), "encoder.layers.3.attn_norm.weight");
  EXPECT_EQ(names::wqkv(2), "encoder.layers.2.attn.Wqkv.weight");
  EXPECT_EQ(names::attn_wo(2), "encoder.layers.2.attn.Wo.weight");
  EXPECT_EQ(names::mlp_norm(2), "encoder.layers.2.mlp_norm.weight");
  EXPECT_EQ(names::wi(2), "encoder.layers.2.mlp.Wi.weight");
  EXPECT_EQ(names::mlp_wo(2), "encoder.layers.2.mlp.Wo.weight");
  EXPECT_EQ(names::final_norm(), "encoder.final_norm.weight");
  EXPECT_EQ(names::head_in_proj_w(1), "head.layers.1.self_attn.in_proj_weight");
  EXPECT_EQ(names::head_in_proj_b(1), "head.layers.1.self_attn.in_proj_bias");
  EXPECT_EQ(names::head_out_proj_b(0), "head.layers.0.self_attn.out_proj.bias");
  EXPECT_EQ(names::head_norm2_b(0), "head.layers.0.norm2.bias");
  EXPECT_EQ(names::scorer_fc2_w(), "scorer.3.weight");
  EXPECT_EQ(names::act_fc2_b(), "act_head.2.bias");
  EXPECT_EQ(names::temperature(), "temperature");
}

TEST(Inventory, FollowsTheConfigForOtherSizes) {
  auto e = english_encoder();
  e["num_hidden_layers"] = 5;
  e["hidden_size"] = 128;
  e["num_attention_heads"] = 2;
  e["intermediate_size"] = 192;
  e["vocab_size"] = 576;
  auto a = english_agent();
  a["head_layers"] = 1;
  a["act_costs"] = {{"escalate", 0.5}, {"ask", 0.2}};
  auto c = parse(e, a);
  auto t = expected_tensors(c);
  EXPECT_EQ(t.size(), 2u + 5 * 5 + 4 + 1 + 12 + 1 + 6 + 4 + 1);
  std::map<std::string, std::vector<int64_t>> m;
  for (const auto& s : t) m[s.name] = s.shape;
  EXPECT_EQ(m.at("act_head.2.weight"), (std::vector<int64_t>{3, 256}));
  EXPECT_EQ(m.at("act_head.0.weight"), (std::vector<int64_t>{256, 132}));
  EXPECT_EQ(m.at("head.layers.0.linear1.weight"), (std::vector<int64_t>{512, 128}));
  EXPECT_EQ(m.count("head.layers.1.linear1.weight"), 0u);
}

}  // namespace
}  // namespace laya::model
