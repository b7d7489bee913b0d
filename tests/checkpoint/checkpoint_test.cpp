#include "checkpoint/checkpoint.h"

#include "checkpoint/convert.h"
#include "model/inventory.h"
#include "test_util.h"

namespace laya::checkpoint {
namespace {

using namespace testing;
using ::testing::HasSubstr;
using ::testing::Not;

std::string open_fails(const fs::path& dir, std::initializer_list<std::string> parts) {
  return expect_error([&] { Checkpoint::open(dir); }, ErrorKind::invalid_checkpoint, parts);
}

TEST(Checkpoint, OpensTinySynth) {
  TinyCheckpoint ck;
  auto c = Checkpoint::open(ck.dir);
  EXPECT_EQ(c.kind(), "tiny");
  EXPECT_TRUE(c.is_synthetic());
  EXPECT_EQ(c.config().encoder.layers, 3);
  EXPECT_EQ(c.config().encoder.hidden, 128);
  EXPECT_EQ(c.config().agent.max_len, 128);
  EXPECT_EQ(c.config().agent.head_max_len, 64);
  EXPECT_EQ(c.weights().tensors().size(), 56u);
  EXPECT_EQ(c.parameter_count(), model::expected_parameter_count(c.config()));
  EXPECT_TRUE(c.warnings().empty());
  EXPECT_EQ(c.paths().tokenizer_json, ck.dir / "tokenizer" / "tokenizer.json");
  Checkpoint moved = std::move(c);
  EXPECT_EQ(moved.weights().tensors().size(), 56u);
}

TEST(Checkpoint, MissingDirectory) {
  TinyCheckpoint ck;
  open_fails(ck.root / "nothing", {"nothing", "not a directory"});
}

TEST(Checkpoint, EachMissingFileIsNamedAndAllAreReported) {
  for (const char* f : {"rl_agent_config.json", "model.safetensors", "encoder/config.json", "tokenizer/tokenizer.json",
                        "tokenizer/tokenizer_config.json"}) {
    TinyCheckpoint ck;
    fs::remove(ck.dir / f);
    open_fails(ck.dir, {std::string(f), "missing"});
  }
  TinyCheckpoint ck;
  fs::remove(ck.dir / "tokenizer/tokenizer.json");
  fs::remove(ck.weights());
  open_fails(ck.dir, {"2 problems", "tokenizer.json", "model.safetensors"});
}

TEST(Checkpoint, EmptyFiles) {
  for (const char* f : {"rl_agent_config.json", "model.safetensors", "encoder/config.json", "tokenizer/tokenizer_config.json"}) {
    TinyCheckpoint ck;
    write_bytes(ck.dir / f, "");
    open_fails(ck.dir, {std::string(f), "empty"});
  }
}

TEST(Checkpoint, TruncatedWeights) {
  TinyCheckpoint ck;
  std::string b = read_bytes(ck.weights());
  write_bytes(ck.weights(), b.substr(0, b.size() - 1000));
  open_fails(ck.dir, {"model.safetensors", "outside the data section"});
}

TEST(Checkpoint, MissingAndExtraTensorsAreReportedTogetherByName) {
  TinyCheckpoint ck;
  // Drop two tensors (keeping the data section contiguous by zero-sizing is not possible, so rebuild).
  auto f = SafetensorsFile::open(ck.weights());
  std::vector<TensorToWrite> ts;
  for (const auto& t : f.tensors()) {
    if (t.name == "scorer.3.bias" || t.name == "encoder.layers.1.attn_norm.weight") continue;
    auto data = std::make_shared<std::vector<std::byte>>(t.data.begin(), t.data.end());
    std::string name = t.name == "act_head.2.bias" ? "act_head.2.bias_typo" : t.name;
    ts.push_back({name, t.dtype, t.shape, [data](std::span<std::byte> o) { std::memcpy(o.data(), data->data(), o.size()); }});
  }
  ts.push_back({"encoder.layers.0.attn_norm.weight", DType::F16, {128}, nullptr});  // layer 0 has none
  const auto copy = ck.root / "copy.safetensors";
  write_safetensors(copy, ts);
  fs::rename(copy, ck.weights());
  auto msg = open_fails(ck.dir, {"model.safetensors", "3 missing tensors", "scorer.3.bias [1]",
                                 "encoder.layers.1.attn_norm.weight [128]", "act_head.2.bias [2]",
                                 "2 unexpected tensors", "act_head.2.bias_typo", "encoder.layers.0.attn_norm.weight",
                                 "2 problems"});
}

TEST(Checkpoint, WrongShapeIsNamed) {
  TinyCheckpoint ck;
  auto r = RawSafetensors::load(ck.weights());
  r.header["scorer.1.weight"]["shape"] = {64, 256};  // same bytes, wrong shape
  r.header["type_emb.weight"]["shape"] = {128, 3};
  r.save(ck.weights());
  open_fails(ck.dir, {"2 mis-shaped tensors", "scorer.1.weight: expected [128, 128], found [64, 256]",
                      "type_emb.weight: expected [3, 128], found [128, 3]"});
}

TEST(Checkpoint, OtherFloatDtypesAreAccepted) {
  // BF16 and F32 tensors are as valid as F16 (a re-saved checkpoint may use them).
  TinyCheckpoint ck;
  auto f = SafetensorsFile::open(ck.weights());
  std::vector<TensorToWrite> ts;
  for (const auto& t : f.tensors()) {
    auto vals = std::make_shared<std::vector<float>>(to_f32(t));
    DType dt = t.name == "scorer.1.weight" ? DType::F32 : t.name == "type_emb.weight" ? DType::BF16 : t.dtype;
    ts.push_back({t.name, dt, t.shape, [vals, dt](std::span<std::byte> o) {
                    for (std::size_t i = 0; i < vals->size(); ++i) {
                      if (dt == DType::F32) {
                        std::memcpy(o.data() + 4 * i, &(*vals)[i], 4);
                      } else {
                        uint16_t v = dt == DType::BF16 ? f32_to_bf16((*vals)[i]) : f32_to_f16((*vals)[i]);
                        std::memcpy(o.data() + 2 * i, &v, 2);
                      }
                    }
                  }});
  }
  const auto copy = ck.root / "copy.safetensors";
  write_safetensors(copy, ts);
  fs::rename(copy, ck.weights());
  auto c = Checkpoint::open(ck.dir);
  EXPECT_EQ(c.weights().at("scorer.1.weight").dtype, DType::F32);
  EXPECT_EQ(c.weights().at("type_emb.weight").dtype, DType::BF16);
}

TEST(Checkpoint, WrongHiddenSizeInConfig) {
  TinyCheckpoint ck;
  auto e = read_json(ck.encoder());
  e["hidden_size"] = 192;
  e["num_attention_heads"] = 3;
  write_json(ck.encoder(), e);
  // A consistent config that does not match the weights: every tensor is mis-shaped, by name.
  auto msg = open_fails(ck.dir, {"mis-shaped", "encoder.embeddings.tok_embeddings.weight: expected [576, 192], found [576, 128]"});
  e["hidden_size"] = 100;
  write_json(ck.encoder(), e);
  open_fails(ck.dir, {"config.json", "hidden_size", "100"});
}

TEST(Checkpoint, ZeroLayers) {
  TinyCheckpoint ck;
  auto e = read_json(ck.encoder());
  e["num_hidden_layers"] = 0;
  write_json(ck.encoder(), e);
  open_fails(ck.dir, {"config.json", "num_hidden_layers", "0"});
}

TEST(Checkpoint, FewerLayersInConfigThanWeights) {
  TinyCheckpoint ck;
  auto e = read_json(ck.encoder());
  e["num_hidden_layers"] = 2;
  write_json(ck.encoder(), e);
  open_fails(ck.dir, {"unexpected", "encoder.layers.2.attn.Wqkv.weight"});
}

TEST(Checkpoint, NegativeAndNanTemperaturesAreClampedNotFatal) {
  TinyCheckpoint ck;
  std::string a = read_bytes(ck.agent());
  auto pos = a.find("\"temperature\": [");
  ASSERT_NE(pos, std::string::npos);
  auto end = a.find(']', pos);
  a.replace(pos, end - pos + 1, "\"temperature\": [-2.0, NaN, 3.0]");
  write_bytes(ck.agent(), a);
  auto c = Checkpoint::open(ck.dir);
  EXPECT_DOUBLE_EQ(c.config().agent.temperature[0], 0.5);
  EXPECT_DOUBLE_EQ(c.config().agent.temperature[1], 1.0);
  EXPECT_DOUBLE_EQ(c.config().agent.temperature[2], 3.0);
  ASSERT_EQ(c.warnings().size(), 2u);
  EXPECT_THAT(c.warnings()[0], HasSubstr("temperature[0]"));
  EXPECT_THAT(c.warnings()[1], HasSubstr("temperature[1]"));
}

TEST(Checkpoint, TemperatureOfWrongLengthFails) {
  TinyCheckpoint ck;
  auto a = read_json(ck.agent());
  a["temperature"] = {1.0, 2.0, 3.0, 4.0};
  write_json(ck.agent(), a);
  open_fails(ck.dir, {"rl_agent_config.json", "temperature", "list of 3"});
}

TEST(Checkpoint, MaxLenBeyondSupported) {
  TinyCheckpoint ck;
  auto a = read_json(ck.agent());
  a["max_len"] = 100000;
  write_json(ck.agent(), a);
  open_fails(ck.dir, {"rl_agent_config.json", "max_len", "100000"});
}

TEST(Checkpoint, ConfigNotJson) {
  TinyCheckpoint ck;
  write_bytes(ck.agent(), "{ \"encoder\": ");
  open_fails(ck.dir, {"rl_agent_config.json", "not valid JSON"});
  TinyCheckpoint ck2;
  write_bytes(ck2.dir / "tokenizer" / "tokenizer_config.json", "nope");
  open_fails(ck2.dir, {"tokenizer_config.json", "JSON"});
}

TEST(Checkpoint, ConfigAndWeightProblemsAreReportedTogether) {
  TinyCheckpoint ck;
  auto a = read_json(ck.agent());
  a["max_len"] = 0;
  write_json(ck.agent(), a);
  write_bytes(ck.weights(), "12345678");
  auto v = Checkpoint::validate(ck.dir);
  ASSERT_EQ(v.problems.size(), 2u);
  EXPECT_THAT(v.problems[0], HasSubstr("max_len"));
  EXPECT_THAT(v.problems[1], HasSubstr("model.safetensors"));
}

TEST(Checkpoint, TokenizerMustFitTheEmbeddingTable) {
  TinyCheckpoint ck;
  // The ModernBERT tokenizer (ids up to 50367) with the tiny 576-row embedding.
  fs::copy_file(laya::test::require_fixtures() / "tokenizer-modernbert" / "tokenizer.json",
                ck.dir / "tokenizer" / "tokenizer.json", fs::copy_options::overwrite_existing);
  open_fails(ck.dir, {"tokenizer.json", "token id 50367", "vocab_size 576"});
  write_bytes(ck.dir / "tokenizer" / "tokenizer.json", "{\"model\": {\"vocab\": {\"a\": 0}");
  open_fails(ck.dir, {"tokenizer.json", "not valid JSON"});
  write_bytes(ck.dir / "tokenizer" / "tokenizer.json", "{\"model\": {}}");
  open_fails(ck.dir, {"tokenizer.json", "model.vocab"});
  // A list-form (Unigram) vocabulary counts by position; added tokens by id.
  write_bytes(ck.dir / "tokenizer" / "tokenizer.json",
              "{\"added_tokens\": [{\"id\": 575, \"content\": \"x\"}], \"model\": {\"vocab\": [[\"a\", 0.0], [\"b\", -1.5]]}}");
  EXPECT_NO_THROW(Checkpoint::open(ck.dir));
  write_bytes(ck.dir / "tokenizer" / "tokenizer.json",
              "{\"added_tokens\": [{\"id\": 576, \"content\": \"x\"}], \"model\": {\"vocab\": [[\"a\", 0.0]]}}");
  open_fails(ck.dir, {"token id 576"});
}

TEST(Checkpoint, KindFromConfig) {
  TinyCheckpoint ck;
  auto c = Checkpoint::open(ck.dir);
  auto cfg = c.config();
  EXPECT_EQ(checkpoint_kind(cfg, false), "custom");
  cfg.encoder.layers = 28;
  cfg.encoder.hidden = 1024;
  cfg.encoder.intermediate = 2624;
  cfg.encoder.vocab_size = 50368;
  cfg.encoder.local_window = 128;
  cfg.agent.max_len = 512;
  cfg.agent.head_max_len = 192;
  EXPECT_EQ(checkpoint_kind(cfg, false), "english");
  cfg.agent.max_len = 1024;
  cfg.agent.head_max_len = 256;
  EXPECT_EQ(checkpoint_kind(cfg, false), "typed-decisions");
}

}  // namespace
}  // namespace laya::checkpoint
