#include "checkpoint/synth.h"

#include <cmath>

#include "checkpoint/checkpoint.h"
#include "checkpoint/convert.h"
#include "model/inventory.h"
#include "test_util.h"

namespace laya::checkpoint {
namespace {

using namespace testing;

std::string all_bytes(const fs::path& dir) {
  std::string s;
  for (const char* f : {"rl_agent_config.json", "model.safetensors", "encoder/config.json", "tokenizer/tokenizer.json",
                        "tokenizer/tokenizer_config.json"}) {
    s += read_bytes(dir / f);
  }
  return s;
}

TEST(Synth, SameSeedSameBytesDifferentSeedDifferentWeights) {
  TinyCheckpoint a(42), b(42), c(43);
  EXPECT_EQ(all_bytes(a.dir), all_bytes(b.dir));
  EXPECT_NE(read_bytes(a.weights()), read_bytes(c.weights()));
  EXPECT_EQ(read_bytes(a.dir / "tokenizer/tokenizer.json"), read_bytes(c.dir / "tokenizer/tokenizer.json"));
  EXPECT_EQ(read_bytes(a.encoder()), read_bytes(c.encoder()));
}

TEST(Synth, TinyInventoryAndScales) {
  TinyCheckpoint ck(3);
  auto c = Checkpoint::open(ck.dir);
  EXPECT_EQ(c.weights().tensors().size(), 56u);
  int f16 = 0, f32 = 0;
  for (const auto& t : c.weights().tensors()) (t.dtype == DType::F16 ? f16 : f32) += 1;
  EXPECT_EQ(f16, 55);
  EXPECT_EQ(f32, 1);
  auto stats = [&](const std::string& name) {
    auto v = to_f32(c.weights().at(name));
    double s = 0, s2 = 0;
    for (float x : v) {
      EXPECT_TRUE(std::isfinite(x));
      s += x;
      s2 += double(x) * x;
    }
    double mean = s / v.size();
    return std::pair{mean, std::sqrt(s2 / v.size() - mean * mean)};
  };
  auto [em, es] = stats(model::names::tok_embeddings());
  EXPECT_NEAR(em, 0.0, 0.002);
  EXPECT_NEAR(es, 0.02, 0.001);
  auto [nm, ns] = stats(model::names::mlp_norm(1));
  EXPECT_NEAR(nm, 1.0, 0.01);
  EXPECT_LT(ns, 0.05);
  auto [wm, ws] = stats(model::names::wi(0));  // N(0, 1/fan_in): fan_in 128
  EXPECT_NEAR(ws, 1.0 / std::sqrt(128.0), 0.005);
  auto [bm, bs] = stats(model::names::head_linear1_b(0));
  EXPECT_LT(bs, 0.05);
  EXPECT_EQ(to_f32(c.weights().at("temperature")), (std::vector<float>{1, 1, 1}));
}

TEST(Synth, TinyOverrides) {
  auto root = laya::test::make_temp_dir("synth");
  SynthOptions o;
  o.layout = "tiny";
  o.seed = 1;
  o.out = root / "x";
  o.layers = 5;
  o.hidden = 192;
  o.intermediate = 100;
  o.local_window = 4;
  o.max_len = 256;
  o.head_max_len = 32;
  write_synthetic_checkpoint(o);
  auto c = Checkpoint::open(o.out);
  EXPECT_EQ(c.config().encoder.layers, 5);
  EXPECT_EQ(c.config().encoder.hidden, 192);
  EXPECT_EQ(c.config().encoder.heads, 3);
  EXPECT_EQ(c.config().encoder.intermediate, 100);
  EXPECT_EQ(c.config().encoder.local_window, 4);
  EXPECT_EQ(c.config().agent.max_len, 256);
  EXPECT_EQ(c.config().agent.head_max_len, 32);
  EXPECT_EQ(c.weights().tensors().size(), 2u + 5 * 5 + 4 + 1 + 24 + 1 + 6 + 4 + 1);
  // Refuses a non-empty directory and bad overrides, with a clear message.
  expect_error([&] { write_synthetic_checkpoint(o); }, ErrorKind::io, {"not empty"});
  o.out = root / "y";
  o.hidden = 100;
  expect_error([&] { write_synthetic_checkpoint(o); }, ErrorKind::bad_request, {"hidden", "64"});
  o.hidden = -1;
  o.max_len = 9000;
  expect_error([&] { write_synthetic_checkpoint(o); }, ErrorKind::invalid_checkpoint, {"max_len", "9000"});
  o.layout = "huge";
  expect_error([&] { write_synthetic_checkpoint(o); }, ErrorKind::bad_request, {"huge"});
  fs::remove_all(root);
}

// amp_dtype picks the official CUDA autocast dtype: "bf16" as shipped by default, "fp16", or left
// out (laya then reads "fp16", and so does the config parser).
TEST(Synth, AmpDtypeIsWrittenOrLeftOut) {
  auto root = laya::test::make_temp_dir("synth-amp");
  for (const std::string amp : {"bf16", "fp16", ""}) {
    SynthOptions o;
    o.layout = "tiny";
    o.seed = 2;
    o.out = root / (amp.empty() ? "none" : amp);
    o.amp_dtype = amp;
    write_synthetic_checkpoint(o);
    const std::string text = read_bytes(o.out / "rl_agent_config.json");
    EXPECT_EQ(text.find("amp_dtype") != std::string::npos, !amp.empty()) << amp;
    EXPECT_EQ(Checkpoint::open(o.out).config().agent.amp_dtype, amp.empty() ? "fp16" : amp);
  }
  fs::remove_all(root);
}

TEST(Synth, TinyTokenizerIsModernBertStyle) {
  auto t = make_tiny_tokenizer();
  auto j = nlohmann::json::parse(t.tokenizer_json);
  EXPECT_EQ(j["normalizer"]["type"], "NFC");
  EXPECT_EQ(j["pre_tokenizer"]["type"], "ByteLevel");
  EXPECT_EQ(j["pre_tokenizer"]["add_prefix_space"], false);
  EXPECT_EQ(j["pre_tokenizer"]["use_regex"], true);
  EXPECT_EQ(j["decoder"]["type"], "ByteLevel");
  EXPECT_EQ(j["model"]["type"], "BPE");
  const auto& vocab = j["model"]["vocab"];
  const auto& merges = j["model"]["merges"];
  EXPECT_GE(merges.size(), 200u);
  EXPECT_EQ(vocab.size(), 256 + merges.size());
  EXPECT_EQ(t.vocab_size, static_cast<int32_t>(vocab.size()) + 5);
  // Every merge's parts and result are in the vocabulary, and ids are dense.
  std::vector<bool> seen(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) seen.at(it.value().get<size_t>()) = true;
  for (bool s : seen) EXPECT_TRUE(s);
  for (const auto& m : merges) {
    std::string a = m[0], b = m[1];
    EXPECT_TRUE(vocab.contains(a) && vocab.contains(b) && vocab.contains(a + b)) << a << " " << b;
  }
  EXPECT_EQ(vocab["!"], 0);
  EXPECT_TRUE(vocab.contains("\xC4\xA0"));  // "Ġ" (space byte)
  const auto& added = j["added_tokens"];
  ASSERT_EQ(added.size(), 5u);
  const char* names[] = {"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(added[i]["content"], names[i]);
    EXPECT_EQ(added[i]["id"], t.vocab_size - 5 + i);
    EXPECT_EQ(added[i]["special"], true);
    EXPECT_EQ(added[i]["lstrip"], i == 4);
  }
  auto c = nlohmann::json::parse(t.tokenizer_config_json);
  EXPECT_EQ(c["tokenizer_class"], "PreTrainedTokenizerFast");
  EXPECT_EQ(c["mask_token"], "[MASK]");
  EXPECT_EQ(c["cls_token"], "[CLS]");
  EXPECT_EQ(c["added_tokens_decoder"][std::to_string(t.vocab_size - 1)]["lstrip"], true);
}

TEST(Synth, FullSizeLayoutsNeedATokenizer) {
  auto root = laya::test::make_temp_dir("synth");
  SynthOptions o;
  o.layout = "english";
  o.out = root / "e";
  o.tokenizer = root / "no-such-tokenizer";
  expect_error([&] { write_synthetic_checkpoint(o); }, ErrorKind::not_found, {"no-such-tokenizer"});
  fs::remove_all(root);
}

// The English layout with its real dims but 2 layers (fast): same tokenizer, names and shapes per layer.
TEST(Synth, EnglishLayoutWithFewerLayersOpens) {
  auto root = laya::test::make_temp_dir("synth");
  SynthOptions o;
  o.layout = "typed-decisions";
  o.seed = 3;
  o.out = root / "t";
  o.layers = 2;
  o.tokenizer = laya::test::require_fixtures() / "tokenizer-modernbert";
  write_synthetic_checkpoint(o);
  auto c = Checkpoint::open(o.out);
  EXPECT_EQ(c.config().encoder.hidden, 1024);
  EXPECT_EQ(c.config().agent.max_len, 1024);
  EXPECT_EQ(c.config().agent.head_max_len, 256);
  EXPECT_EQ(c.kind(), "custom");  // 2 layers is not the official size
  EXPECT_EQ(read_bytes(o.out / "tokenizer/tokenizer.json"),
            read_bytes(laya::test::fixtures_dir() / "tokenizer-modernbert" / "tokenizer.json"));
  EXPECT_EQ(read_bytes(o.out / "tokenizer/tokenizer_config.json"),
            read_bytes(laya::test::fixtures_dir() / "tokenizer-modernbert" / "original" / "tokenizer_config.json"));
  auto agent = read_json(o.out / "rl_agent_config.json");
  EXPECT_EQ(agent["model_name"], "laya-typed-decisions");
  EXPECT_EQ(agent["max_tokens_per_batch"], 4096);
  fs::remove_all(root);
}

}  // namespace
}  // namespace laya::checkpoint

namespace laya::checkpoint {
namespace {

// The one full-size test (writes ~842 MB; a few seconds): the English layout opens as "english" with
// the official inventory, 205 F16 tensors + the F32 temperature.
TEST(Synth, FullSizeEnglishOpensWithTheOfficialInventory) {
  auto root = laya::test::make_temp_dir("synth");
  SynthOptions o;
  o.layout = "english";
  o.seed = 1;
  o.out = root / "english";
  o.tokenizer = laya::test::require_fixtures() / "tokenizer-modernbert";
  write_synthetic_checkpoint(o);
  auto c = Checkpoint::open(o.out);
  EXPECT_EQ(c.kind(), "english");
  EXPECT_EQ(c.weights().tensors().size(), 206u);
  EXPECT_EQ(c.parameter_count(), 421'293'830);
  int f16 = 0;
  for (const auto& t : c.weights().tensors()) f16 += t.dtype == DType::F16;
  EXPECT_EQ(f16, 205);
  EXPECT_EQ(c.weights().at("temperature").dtype, DType::F32);
  // Data section = 205 x fp16 + 3 x fp32 elements exactly.
  EXPECT_EQ(c.weights().file_size() - 8 - c.weights().header_size(), (421'293'830ull - 3) * 2 + 12);
  ASSERT_EQ(c.warnings().size(), 1u);  // the shipped choice:11+ bucket, clamped
  EXPECT_THAT(c.warnings()[0], ::testing::HasSubstr("choice:11+"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace laya::checkpoint
