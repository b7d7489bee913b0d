#include "model/config_parse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "config_test_util.h"
#include "laya/errors.h"
#include "support/paths.h"

namespace laya::model {
namespace {

using ::testing::HasSubstr;
using testing::english_agent;
using testing::english_encoder;
using testing::multilingual_agent;
using testing::multilingual_encoder;

ModelConfig parse(const nlohmann::json& e, const nlohmann::json& a, std::vector<std::string>* w = nullptr) {
  return parse_model_config_text(e.dump(), "encoder/config.json", a.dump(), "rl_agent_config.json", w);
}

ModelConfig parse_text(const std::string& e, const std::string& a, std::vector<std::string>* w = nullptr) {
  return parse_model_config_text(e, "encoder/config.json", a, "rl_agent_config.json", w);
}

// Expects invalid_checkpoint whose message names `file` and contains every `parts`.
template <typename Fn>
void expect_invalid(Fn&& fn, const std::string& file, std::initializer_list<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown; expected one naming " << file;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::invalid_checkpoint) << e.what();
    EXPECT_THAT(e.what(), HasSubstr(file));
    for (const auto& p : parts) EXPECT_THAT(e.what(), HasSubstr(p));
  }
}

TEST(ConfigParse, EnglishModernBertStyle) {
  std::vector<std::string> warnings;
  auto c = parse(english_encoder(), english_agent(), &warnings);
  EXPECT_EQ(c.encoder.layers, 28);
  EXPECT_EQ(c.encoder.hidden, 1024);
  EXPECT_EQ(c.encoder.heads, 16);
  EXPECT_EQ(c.encoder.head_dim, 64);
  EXPECT_EQ(c.encoder.intermediate, 2624);
  EXPECT_EQ(c.encoder.vocab_size, 50368);
  EXPECT_EQ(c.encoder.local_window, 128);
  EXPECT_EQ(c.encoder.global_every, 3);
  EXPECT_DOUBLE_EQ(c.encoder.global_theta, 160000.0);
  EXPECT_DOUBLE_EQ(c.encoder.local_theta, 10000.0);
  EXPECT_DOUBLE_EQ(c.encoder.norm_eps, 1e-5);
  ASSERT_EQ(c.encoder.layer_global.size(), 28u);
  int globals = 0;
  for (int i = 0; i < 28; ++i) {
    EXPECT_EQ(c.encoder.is_global(i), i % 3 == 0) << i;
    globals += c.encoder.is_global(i);
  }
  EXPECT_EQ(globals, 10);
  EXPECT_EQ(c.head.layers, 2);
  EXPECT_EQ(c.head.heads, 16);
  EXPECT_EQ(c.head.ffn, 4096);
  EXPECT_EQ(c.head.n_act, 2);
  EXPECT_EQ(c.agent.max_len, 512);
  EXPECT_EQ(c.agent.head_max_len, 192);
  EXPECT_EQ(c.agent.amp_dtype, "bf16");
  EXPECT_EQ(c.agent.encoder_name, "answerdotai/ModernBERT-large");
  EXPECT_DOUBLE_EQ(c.agent.temperature[0], 1.6369030475616455);
  // The shipped choice:11+ bucket is clamped (laya 0.3.20) and a warning names it.
  EXPECT_DOUBLE_EQ(c.agent.temperature_by_options.at("choice:11+"), 0.5);
  EXPECT_DOUBLE_EQ(c.agent.temperature_by_options_raw.at("choice:11+"), 0.10058280825614929);
  EXPECT_DOUBLE_EQ(c.agent.temperature_by_options.at("choice:2"), 1.9063563346862793);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("choice:11+"));
  EXPECT_THAT(warnings[0], HasSubstr("rl_agent_config.json"));
}

TEST(ConfigParse, MultilingualTransformers5Style) {
  auto c = parse(multilingual_encoder(), multilingual_agent());
  EXPECT_EQ(c.encoder.layers, 22);
  EXPECT_EQ(c.encoder.hidden, 768);
  EXPECT_EQ(c.encoder.heads, 12);
  EXPECT_DOUBLE_EQ(c.encoder.global_theta, 160000.0);
  EXPECT_DOUBLE_EQ(c.encoder.local_theta, 160000.0);
  EXPECT_EQ(c.encoder.global_every, 3);
  EXPECT_EQ(c.agent.max_len, 1024);
  EXPECT_EQ(c.head.ffn, 3072);
  EXPECT_EQ(c.head.heads, 12);
}

// Expected values below were produced by transformers 5.17 AutoConfig + laya's _apply_rope_config on
// the same JSON (see docs/checkpoint.md, "Encoder config styles").
TEST(ConfigParse, WhenBothStylesExistTransformers5KeysWin) {
  auto e = english_encoder();
  e["num_hidden_layers"] = 5;
  e["global_rope_theta"] = 1000.0;
  e["local_rope_theta"] = 20.0;
  e["global_attn_every_n_layers"] = 2;
  e["layer_types"] = {"full_attention", "full_attention", "full_attention", "full_attention", "full_attention"};
  e["rope_parameters"] = {{"full_attention", {{"rope_type", "default"}, {"rope_theta", 111.0}}},
                          {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 222.0}}}};
  std::vector<std::string> w;
  auto c = parse(e, english_agent(), &w);
  EXPECT_DOUBLE_EQ(c.encoder.global_theta, 111.0);
  EXPECT_DOUBLE_EQ(c.encoder.local_theta, 222.0);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(c.encoder.is_global(i));
  EXPECT_EQ(c.encoder.global_every, 1);
}

TEST(ConfigParse, PartialRopeParametersFallBackToModernBertKeys) {
  auto e = english_encoder();
  e["num_hidden_layers"] = 5;
  e["global_rope_theta"] = 1000.0;
  e["local_rope_theta"] = 20.0;
  e.erase("global_attn_every_n_layers");
  e["rope_parameters"] = {{"full_attention", {{"rope_type", "default"}, {"rope_theta", 111.0}}}};
  auto c = parse(e, english_agent());
  EXPECT_DOUBLE_EQ(c.encoder.global_theta, 111.0);
  EXPECT_DOUBLE_EQ(c.encoder.local_theta, 20.0);
  std::vector<bool> want{true, false, false, true, false};
  EXPECT_EQ(c.encoder.layer_global, want);
}

TEST(ConfigParse, ModernBertKeysSetPattern) {
  auto e = english_encoder();
  e["num_hidden_layers"] = 5;
  e["global_attn_every_n_layers"] = 2;
  e["global_rope_theta"] = 1000.0;
  e["local_rope_theta"] = 20.0;
  auto c = parse(e, english_agent());
  std::vector<bool> want{true, false, true, false, true};
  EXPECT_EQ(c.encoder.layer_global, want);
  EXPECT_DOUBLE_EQ(c.encoder.local_theta, 20.0);
}

TEST(ConfigParse, IrregularLayerTypes) {
  auto e = english_encoder();
  e["num_hidden_layers"] = 5;
  e.erase("global_attn_every_n_layers");
  e["layer_types"] = {"full_attention", "sliding_attention", "sliding_attention", "full_attention", "full_attention"};
  auto c = parse(e, english_agent());
  std::vector<bool> want{true, false, false, true, true};
  EXPECT_EQ(c.encoder.layer_global, want);
  EXPECT_EQ(c.encoder.global_every, 0);  // not periodic
}

TEST(ConfigParse, FlatRopeParametersAreRejectedLikeTransformers) {
  auto e = english_encoder();
  e["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 333.0}};
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"rope_parameters.rope_t"});
}

TEST(ConfigParse, BadLayerTypes) {
  auto e = english_encoder();
  e["layer_types"] = {"full_attention"};
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"layer_types", "28"});
  e["layer_types"] = nlohmann::json::array();
  for (int i = 0; i < 28; ++i) e["layer_types"].push_back(i == 4 ? "chunked_attention" : "full_attention");
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"layer_types[4]"});
}

TEST(ConfigParse, UnsupportedRopeType) {
  auto e = english_encoder();
  e["rope_parameters"] = {{"full_attention", {{"rope_type", "yarn"}, {"rope_theta", 1.0}}}};
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"rope_type", "yarn"});
}

TEST(ConfigParse, WrongHiddenSize) {
  auto e = english_encoder();
  e["hidden_size"] = 1000;
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"hidden_size", "1000"});
  e["hidden_size"] = 1024;
  e["num_attention_heads"] = 8;  // head_dim 128
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"num_attention_heads", "128"});
  e["num_attention_heads"] = "16";
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"num_attention_heads", "integer"});
}

TEST(ConfigParse, ZeroOrNegativeSizes) {
  for (const char* key : {"num_hidden_layers", "vocab_size", "intermediate_size", "hidden_size"}) {
    for (int v : {0, -3}) {
      auto e = english_encoder();
      e[key] = v;
      expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {key});
    }
  }
}

TEST(ConfigParse, BiasesActivationAndModelTypeAreChecked) {
  for (const char* key : {"attention_bias", "mlp_bias", "norm_bias"}) {
    auto e = english_encoder();
    e[key] = true;
    expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {key});
  }
  auto e = english_encoder();
  e["hidden_activation"] = "gelu_pytorch_tanh";
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"hidden_activation"});
  e = english_encoder();
  e["model_type"] = "bert";
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"model_type", "bert"});
  e = english_encoder();
  e["norm_eps"] = 0.0;
  expect_invalid([&] { parse(e, english_agent()); }, "encoder/config.json", {"norm_eps"});
}

TEST(ConfigParse, MaxLenBeyondWhatTheModelSupports) {
  auto a = english_agent();
  a["max_len"] = 8193;
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"max_len", "8193", "8192"});
  auto e = english_encoder();
  e["max_position_embeddings"] = 512;
  a["max_len"] = 1024;
  expect_invalid([&] { parse(e, a); }, "rl_agent_config.json", {"max_len", "1024", "512"});
  a["max_len"] = 0;
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"max_len"});
  a = english_agent();
  a["head_max_len"] = -1;
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"head_max_len"});
  a = english_agent();
  a["max_len"] = 8192;
  EXPECT_EQ(parse(english_encoder(), a).agent.max_len, 8192);
}

TEST(ConfigParse, NegativeTemperatureIsClampedWithAWarning) {
  auto a = english_agent();
  a["temperature"] = {-1.0, 7.5, 0.7};
  std::vector<std::string> w;
  auto c = parse(english_encoder(), a, &w);
  EXPECT_DOUBLE_EQ(c.agent.temperature[0], 0.5);
  EXPECT_DOUBLE_EQ(c.agent.temperature[1], 5.0);
  EXPECT_DOUBLE_EQ(c.agent.temperature[2], 0.7);
  EXPECT_DOUBLE_EQ(c.agent.temperature_raw[0], -1.0);
  EXPECT_DOUBLE_EQ(c.agent.temperature_raw[1], 7.5);
  int named = 0;
  for (const auto& s : w) named += (s.find("temperature[0]") != std::string::npos) + (s.find("temperature[1]") != std::string::npos);
  EXPECT_EQ(named, 2);
}

TEST(ConfigParse, NanInfAndNonNumericTemperaturesBecomeOne) {
  // Python's json writes NaN/Infinity bare; laya's clamp_temperature maps them (and non-numbers) to 1.0.
  std::string a = english_agent().dump();
  auto pos = a.find("\"temperature\":[");
  ASSERT_NE(pos, std::string::npos);
  auto end = a.find(']', pos);
  a.replace(pos, end - pos + 1, "\"temperature\":[NaN, -Infinity, \"abc\"]");
  std::vector<std::string> w;
  auto c = parse_text(english_encoder().dump(), a, &w);
  EXPECT_DOUBLE_EQ(c.agent.temperature[0], 1.0);
  EXPECT_DOUBLE_EQ(c.agent.temperature[1], 1.0);
  EXPECT_DOUBLE_EQ(c.agent.temperature[2], 1.0);
  EXPECT_TRUE(std::isnan(c.agent.temperature_raw[0]));
  EXPECT_TRUE(std::isinf(c.agent.temperature_raw[1]));
  EXPECT_GE(w.size(), 3u);

  auto j = english_agent();
  j["temperature"] = {nullptr, true, "2.5"};  // float(None) raises -> 1.0; float(True) = 1.0; float("2.5") = 2.5
  auto c2 = parse(english_encoder(), j);
  EXPECT_DOUBLE_EQ(c2.agent.temperature[0], 1.0);
  EXPECT_DOUBLE_EQ(c2.agent.temperature[1], 1.0);
  EXPECT_DOUBLE_EQ(c2.agent.temperature[2], 2.5);
  j["temperature_by_options"] = {{"choice:2", "NaN"}, {"noul:2", 0.0}};
  auto c3 = parse(english_encoder(), j);
  EXPECT_DOUBLE_EQ(c3.agent.temperature_by_options.at("choice:2"), 1.0);
  EXPECT_DOUBLE_EQ(c3.agent.temperature_by_options.at("noul:2"), 0.5);
}

TEST(ConfigParse, TemperatureOfWrongShapeFailsClearly) {
  auto a = english_agent();
  a["temperature"] = {1.0, 1.0};
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"temperature", "list of 3"});
  a["temperature"] = 1.5;
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"temperature"});
  a = english_agent();
  a["temperature_by_options"] = {1.0, 2.0};
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"temperature_by_options"});
}

TEST(ConfigParse, DefaultsFollowLaya) {
  auto a = english_agent();
  for (const char* k : {"max_len", "head_max_len", "temperature", "temperature_by_options", "amp_dtype"}) a.erase(k);
  auto c = parse(english_encoder(), a);
  EXPECT_EQ(c.agent.max_len, 512);
  EXPECT_EQ(c.agent.head_max_len, 192);
  EXPECT_EQ(c.agent.amp_dtype, "fp16");  // cfg.get("amp_dtype", "fp16")
  EXPECT_EQ(c.agent.temperature, (std::array<double, 3>{1.0, 1.0, 1.0}));
  EXPECT_TRUE(c.agent.temperature_by_options.empty());
  a.erase("head_layers");
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"head_layers"});
  a = english_agent();
  a.erase("encoder");
  expect_invalid([&] { parse(english_encoder(), a); }, "rl_agent_config.json", {"encoder"});
}

TEST(ConfigParse, MalformedFiles) {
  expect_invalid([&] { parse_text("", english_agent().dump()); }, "encoder/config.json", {"empty"});
  expect_invalid([&] { parse_text("{\"hidden_size\": ", english_agent().dump()); }, "encoder/config.json",
                 {"not valid JSON"});
  expect_invalid([&] { parse_text("[1, 2]", english_agent().dump()); }, "encoder/config.json", {"object"});
  expect_invalid([&] { parse_text(english_encoder().dump(), "{"); }, "rl_agent_config.json", {"not valid JSON"});
}

// Found while writing fuzz/model_config_fuzz (by reading the code): a deeply nested value overflowed
// the stack in the error message's nlohmann dump() (ASan stack-overflow) instead of failing cleanly.
TEST(ConfigParse, DeeplyNestedValueIsRejected) {
  const size_t depth = 1000000;
  std::string deep = std::string(depth, '[') + std::string(depth, ']');
  expect_invalid([&] { parse_text(R"({"model_type": "modernbert", "vocab_size": )" + deep + "}", english_agent().dump()); },
                 "encoder/config.json", {"nests deeper"});
  auto agent = english_agent().dump();
  agent.insert(agent.size() - 1, R"(,"temperature": )" + deep);
  expect_invalid([&] { parse_text(english_encoder().dump(), agent); }, "rl_agent_config.json", {"nests deeper"});
}

TEST(ConfigParse, MissingFileIsNamed) {
  auto dir = laya::test::make_temp_dir("cfg");
  {
    std::ofstream(dir / "config.json") << english_encoder().dump();
  }
  expect_invalid([&] { parse_model_config(dir / "config.json", dir / "rl_agent_config.json"); },
                 "rl_agent_config.json", {"missing"});
  std::filesystem::remove_all(dir);
}

TEST(ConfigParse, FixtureModernBertConfigParses) {
  auto dir = laya::test::require_fixtures() / "tokenizer-modernbert" / "original";
  auto tmp = laya::test::make_temp_dir("cfg");
  std::ofstream(tmp / "rl_agent_config.json") << english_agent().dump();
  auto c = parse_model_config(dir / "config.json", tmp / "rl_agent_config.json");
  EXPECT_EQ(c.encoder.layers, 28);
  EXPECT_EQ(c.encoder.vocab_size, 50368);
  std::filesystem::remove_all(tmp);
}

TEST(ClampTemperature, MatchesLaya) {
  EXPECT_DOUBLE_EQ(clamp_temperature(0.1), 0.5);
  EXPECT_DOUBLE_EQ(clamp_temperature(9.0), 5.0);
  EXPECT_DOUBLE_EQ(clamp_temperature(1.25), 1.25);
  EXPECT_DOUBLE_EQ(clamp_temperature(NAN), 1.0);
  EXPECT_DOUBLE_EQ(clamp_temperature(INFINITY), 1.0);
  EXPECT_DOUBLE_EQ(clamp_temperature(-INFINITY), 1.0);
}

}  // namespace
}  // namespace laya::model
