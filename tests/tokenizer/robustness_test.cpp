// Inputs that must not hurt, load errors, decode, special tokens and concurrent use.
#include <zlib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "laya/errors.h"
#include "test_util.h"
#include "tokenizer/special_tokens.h"

namespace laya::tokenizer::test {
namespace {

void expect_invalid_utf8(const Tokenizer& tok, const std::string& s, std::size_t byte) {
  try {
    (void)tok.encode(s);
    ADD_FAILURE() << "accepted invalid UTF-8 " << nlohmann::json::binary(std::vector<uint8_t>(s.begin(), s.end())).dump();
  } catch (const laya::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_request);
    EXPECT_NE(std::string(e.what()).find("invalid UTF-8 at byte " + std::to_string(byte)), std::string::npos) << e.what();
  }
}

TEST(TokenizerRobustness, InvalidUtf8IsRejectedWithItsOffset) {
  auto tok = modernbert();
  expect_invalid_utf8(*tok, "\xff", 0);
  expect_invalid_utf8(*tok, "abc\xc3", 3);                         // truncated
  expect_invalid_utf8(*tok, "ok \x80", 3);                         // stray continuation
  expect_invalid_utf8(*tok, "x\xc0\x80", 1);                       // overlong NUL (modified UTF-8)
  expect_invalid_utf8(*tok, "ab\xed\xa0\x80", 2);                  // lone high surrogate (WTF-8)
  expect_invalid_utf8(*tok, "\xed\xb0\x80z", 0);                   // lone low surrogate
  expect_invalid_utf8(*tok, "e \xed\xa0\xbd\xed\xb8\x80", 2);      // CESU-8 surrogate pair of U+1F600
  expect_invalid_utf8(*tok, "\xf4\x90\x80\x80", 0);                // above U+10FFFF
  expect_invalid_utf8(*tok, "\xe0\x80\xaf", 0);                    // overlong '/'
  expect_invalid_utf8(*standin(), "[MASK] \xfe", 7);
  // encode_append leaves the output untouched on error.
  std::vector<int32_t> out{1, 2};
  EXPECT_THROW(tok->encode_append("a\xff", out), laya::Error);
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2}));
}

TEST(TokenizerRobustness, NulBytesAreOrdinaryCharacters) {
  auto tok = modernbert();
  const std::string s("a\0b\0\0 c\0", 8);
  const auto ids = tok->encode(s);
  EXPECT_FALSE(ids.empty());
  EXPECT_EQ(tok->decode(ids), s);  // byte-level BPE round-trips
  const auto m = standin()->encode(std::string("\0", 1));
  EXPECT_EQ(m, (std::vector<int32_t>{235248, 217}));  // "▁" + <0x00> (HF tokenizers 0.23.3)
}

TEST(TokenizerRobustness, FourMiBStringIsExact) {
  // A unit that starts and ends on pre-token boundaries: the whole must be the unit's ids repeated.
  auto tok = modernbert();
  const std::string unit = "Hello world, it's 2024: caf\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87 [MASK] ok.\n";
  const auto unit_ids = tok->encode(unit);
  std::string big;
  while (big.size() < (std::size_t(4) << 20)) big += unit;
  const auto ids = tok->encode(big);
  ASSERT_EQ(ids.size() % unit_ids.size(), 0u);
  for (std::size_t i = 0; i < ids.size(); i += unit_ids.size())
    ASSERT_TRUE(std::equal(unit_ids.begin(), unit_ids.end(), ids.begin() + long(i))) << "at id " << i;
}

std::string lcg_text(uint64_t seed, std::size_t length, const std::string& alphabet) {
  std::string out;
  out.reserve(length);
  uint64_t x = seed;
  for (std::size_t i = 0; i < length; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    out.push_back(alphabet[(x >> 33) % alphabet.size()]);
  }
  return out;
}

TEST(TokenizerRobustness, LongWordsWithoutWhitespaceMatchHf) {
  // tests/data/tokenizer/long-modernbert.jsonl.gz: 1 MiB words and their HF ids. (Time is measured
  // by bench/tokenizer, not asserted here.)
  gzFile f = gzopen((laya::test::source_dir() / "tests/data/tokenizer/long-modernbert.jsonl.gz").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string data;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) data.append(buf, std::size_t(n));
  gzclose(f);
  std::size_t pos = 0, cases = 0;
  while (pos < data.size()) {
    std::size_t e = data.find('\n', pos);
    if (e == std::string::npos) e = data.size();
    const auto c = nlohmann::json::parse(data.substr(pos, e - pos));
    pos = e + 1;
    std::string text;
    if (c.contains("unit")) {
      for (int i = 0; i < c["count"].get<int>(); ++i) text += c["unit"].get<std::string>();
    } else {
      text = lcg_text(c["seed"].get<uint64_t>(), c["length"].get<std::size_t>(), c["alphabet"].get<std::string>());
    }
    EXPECT_EQ(modernbert()->encode(text), c["ids"].get<std::vector<int32_t>>()) << c["name"];
    ++cases;
  }
  EXPECT_EQ(cases, 5u);
}

TEST(TokenizerRobustness, ConcurrentEncodeGivesTheSameIds) {
  auto tok = modernbert();
  std::vector<std::string> texts;
  for (int i = 0; i < 400; ++i)
    texts.push_back("Request " + std::to_string(i) + ": the quick brown fox [MASK] jumps \xf0\x9f\x98\x80 over " + std::string(std::size_t(i % 7), ' ') + "dogs" + std::to_string(i * 7919));
  std::vector<std::vector<int32_t>> want;
  for (const auto& t : texts) want.push_back(tok->encode(t));
  std::vector<int> bad(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep)
        for (std::size_t i = 0; i < texts.size(); ++i)
          if (tok->encode(texts[(i * (t + 1)) % texts.size()]) != want[(i * (t + 1)) % texts.size()]) ++bad[std::size_t(t)];
    });
  }
  for (auto& th : threads) th.join();
  for (int b : bad) EXPECT_EQ(b, 0);
}

TEST(TokenizerApi, VocabularyAndLookups) {
  auto tok = modernbert();
  EXPECT_EQ(tok->vocab_size(), 50368);
  EXPECT_EQ(tok->token_to_id("[MASK]"), 50284);
  EXPECT_EQ(tok->token_to_id("|||IP_ADDRESS|||"), 0);
  EXPECT_EQ(tok->token_to_id("hello"), 25521);
  EXPECT_EQ(tok->token_to_id("no such token here"), std::nullopt);
  EXPECT_EQ(tok->id_to_token(50281), "[CLS]");
  EXPECT_EQ(tok->id_to_token(25521), "hello");
  EXPECT_EQ(tok->id_to_token(-1), "");
  EXPECT_EQ(tok->id_to_token(1 << 30), "");
  EXPECT_EQ(standin()->vocab_size(), 256000);
  EXPECT_EQ(standin()->token_to_id("<unk>"), 3);
}

TEST(TokenizerApi, AddedTokensAsHfMatchesThem) {
  auto tok = modernbert();
  // Values from HF tokenizers 0.23.3.
  EXPECT_EQ(tok->encode("hello   world"), (std::vector<int32_t>{25521, 50275, 10186}));  // whitespace-run token
  EXPECT_EQ(tok->encode("a [MASK] b"), (std::vector<int32_t>{66, 50284, 270}));            // lstrip eats the space
  EXPECT_EQ(tok->encode("x  [MASK]"), (std::vector<int32_t>{89, 50284}));
  EXPECT_EQ(tok->encode("<|endoftext|>hi"), (std::vector<int32_t>{50279, 5801}));
  EXPECT_EQ(tok->encode("e\xcc\x81"), (std::vector<int32_t>{860}));  // NFC
  EXPECT_EQ(tok->encode(""), std::vector<int32_t>{});
  auto m = standin();
  EXPECT_EQ(m->encode("hello  world"), (std::vector<int32_t>{25612, 235248, 2134}));
  EXPECT_EQ(m->encode("<mask> x"), (std::vector<int32_t>{4, 1141}));
  EXPECT_EQ(m->encode("a\xe2\x96\x81\xe2\x96\x81" "b"), (std::vector<int32_t>{476, 139, 518}));
  EXPECT_EQ(m->encode("\xf0\x9f\x98\x80 zz "), (std::vector<int32_t>{79937, 40271, 235248}));
}

TEST(TokenizerApi, DecodeAsHf) {
  auto tok = modernbert();
  const std::vector<int32_t> ids{50254, 50284, 300, 1, 50282};
  EXPECT_EQ(tok->decode(ids), std::string(24, ' ') + "[MASK]il<|padding|>[SEP]");
  EXPECT_EQ(tok->decode(ids, true), std::string(24, ' ') + "il");
  EXPECT_EQ(tok->decode(tok->encode("caf\xc3\xa9 \xf0\x9f\x98\x80\n\tx")), "caf\xc3\xa9 \xf0\x9f\x98\x80\n\tx");
  const std::vector<int32_t> broken{172};  // a lone byte-level continuation byte -> U+FFFD
  EXPECT_EQ(tok->decode(broken), "\xef\xbf\xbd");
  auto m = standin();
  EXPECT_EQ(m->decode(std::vector<int32_t>{235248, 235248, 108, 4, 1}), "  \n<mask><eos>");
  EXPECT_EQ(m->decode(m->encode(" hello  world \xf0\x9f\x98\x80")), " hello  world \xf0\x9f\x98\x80");
}

TEST(TokenizerLoad, ErrorsNameTheProblem) {
  auto expect_load_error = [](const std::string& json, const std::string& needle) {
    try {
      (void)Tokenizer::from_json(json, "t.json");
      ADD_FAILURE() << "loaded " << json;
    } catch (const laya::Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::invalid_checkpoint);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  const std::string model = R"("model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]})";
  expect_load_error("{", "not valid JSON");
  expect_load_error("{}", "model");
  expect_load_error(R"({"normalizer": {"type": "Lowercase"}, )" + model + "}", "normalizer.type");
  expect_load_error(R"({"pre_tokenizer": {"type": "Whitespace"}, )" + model + "}", "pre_tokenizer.type");
  expect_load_error(R"({"model": {"type": "WordPiece", "vocab": {}}})", "model.type");
  expect_load_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a c"]}})", "model.merges[0]");
  expect_load_error(R"({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "\\d+"}, "behavior": "Isolated"}, )" + model + "}",
                    "pre_tokenizer.pattern");
  // Found by fuzz/tokenizer_json_fuzz: one id of 2^31 - 1 sized the dense reverse vocabulary to
  // 2^31 strings (out of memory); ids above 2^21 - 1 are rejected, in the vocabulary and added tokens.
  expect_load_error(R"({"model": {"type": "BPE", "vocab": {"a": 2147483647}, "merges": []}})", "above the largest supported");
  expect_load_error(R"({"model": {"type": "BPE", "vocab": {"a": 2097152}, "merges": []}})", "above the largest supported");
  expect_load_error(R"({"added_tokens": [{"id": 2097152, "content": "<x>"}], )" + model + "}", "above the largest supported");
  EXPECT_EQ(Tokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": 2097151}, "merges": []}})")->vocab_size(), 2097152);
  try {
    (void)Tokenizer::from_file("/nonexistent/tokenizer.json");
    ADD_FAILURE();
  } catch (const laya::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::io);
  }
  // Both merge spellings load the same model.
  auto t1 = Tokenizer::from_json(R"({)" + model + "}");
  auto t2 = Tokenizer::from_json(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": [["a", "b"]]}})");
  EXPECT_EQ(t1->encode("ab"), (std::vector<int32_t>{2}));
  EXPECT_EQ(t2->encode("ab"), (std::vector<int32_t>{2}));
}

TEST(TokenizerLoad, SpecialTokensFromStringAndObjectForms) {
  auto tok = modernbert();
  const auto dir = laya::test::make_temp_dir("laya-tok");
  {
    std::ofstream(dir / "tokenizer_config.json") << R"({"cls_token": "[CLS]", "sep_token": {"content": "[SEP]"}, "mask_token": "[MASK]"})";
  }
  auto st = load_special_tokens(dir / "tokenizer_config.json", *tok);
  EXPECT_EQ(st.cls_id, 50281);
  EXPECT_EQ(st.sep_id, 50282);
  EXPECT_EQ(st.pad_id, -1);
  EXPECT_EQ(st.mask_token, "[MASK]");
  {
    std::ofstream(dir / "special_tokens_map.json") << R"({"pad_token": {"content": "[PAD]"}, "cls_token": "[SEP]"})";
  }
  st = load_special_tokens(dir / "tokenizer_config.json", *tok);
  EXPECT_EQ(st.pad_id, 50283);
  EXPECT_EQ(st.cls_id, 50282);  // special_tokens_map.json overrides, as in transformers
  {
    std::ofstream(dir / "tokenizer_config.json") << R"({"mask_token": "<nope>"})";
  }
  EXPECT_THROW(load_special_tokens(dir / "tokenizer_config.json", *tok), laya::Error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace laya::tokenizer::test
