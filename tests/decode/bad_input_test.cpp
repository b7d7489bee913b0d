// Bad input is normal input: mutated and hostile bodies through parse -> rows -> decode never crash;
// every failure is a laya::Error with a 4xx status and a non-empty detail.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>

#include "api/json.h"
#include "api/request.h"
#include "decode/answers.h"
#include "prompt/rows.h"
#include "support/gz_lines.h"
#include "support/paths.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace laya::decode {
namespace {

struct Pipeline {
  std::shared_ptr<const tokenizer::Tokenizer> tok;
  tokenizer::SpecialTokens special;
  model::AgentConfig cfg;
  Pipeline() {
    auto fx = test::require_fixtures();
    tok = tokenizer::Tokenizer::from_file(fx / "tokenizer-modernbert" / "tokenizer.json");
    special = tokenizer::load_special_tokens(fx / "tokenizer-modernbert" / "original" / "tokenizer_config.json", *tok);
  }
  // 200 on success, else the status of the laya::Error; anything else escapes and fails the test.
  int run(std::string_view body, std::string* detail = nullptr) {
    try {
      auto req = api::parse_request(body);
      auto p = prompt::build_rows(req, *tok, special, cfg);
      std::vector<float> logits(static_cast<size_t>(p.batch.total_markers()), 0.5f);
      std::vector<float> act(static_cast<size_t>(p.batch.rows()) * 2, 1.0f);
      std::string out = decode_response(req, p, logits, act, 2, cfg);
      EXPECT_FALSE(out.empty());
      return 200;
    } catch (const Error& e) {
      if (detail) *detail = e.what();
      EXPECT_NE(std::string(e.what()), "");
      return http_status(e.kind());
    }
  }
};

TEST(BadInput, MutatedOracleBodiesNeverCrash) {
  Pipeline pl;
  auto lines = test::gz_lines(test::source_dir() / "tests/data/api/oracle_cases.jsonl.gz");
  ASSERT_FALSE(lines.empty());
  std::vector<std::string> bodies;
  for (const auto& line : lines) {
    if (bodies.size() >= 150) break;
    auto c = api::parse_json(line);
    if (c.find("body")->as_string().size() < 4000) bodies.push_back(c.find("body")->as_string());
  }
  std::mt19937 rng(12345);
  int statuses[600] = {};
  for (int it = 0; it < 3000; ++it) {
    std::string b = bodies[rng() % bodies.size()];
    int kind = static_cast<int>(rng() % 5);
    size_t pos = b.empty() ? 0 : rng() % b.size();
    if (kind == 0) b.resize(pos);                                      // truncate
    else if (kind == 1) b[pos] = static_cast<char>(rng() % 256);       // flip a byte
    else if (kind == 2) b.insert(pos, 1, "{}[]\",:\\0-e."[rng() % 13]);  // structural noise
    else if (kind == 3) b.erase(pos, rng() % 8);
    else b.insert(pos, "\xF0\x9F\x99\x82\xED\xA0\x80");
    int s = pl.run(b);
    ASSERT_TRUE(s == 200 || (s >= 400 && s < 500)) << s << " for " << b.substr(0, 300);
    statuses[s]++;
  }
  EXPECT_GT(statuses[200], 0);
  EXPECT_GT(statuses[400], 0);
}

TEST(BadInput, HostileShapes) {
  Pipeline pl;
  std::string detail;
  // 4 MiB state: over the body cap, and over the state cap when the body cap is raised.
  std::string state(4u << 20, 'a');
  EXPECT_EQ(pl.run(R"({"state": ")" + state + R"(", "questions": {}})", &detail), 413);
  api::RequestLimits big;
  big.max_body_bytes = 64u << 20;
  try {
    api::parse_request(R"({"state": ")" + state + R"(", "questions": {}})", big);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "state too large (4194304 > 50000 chars)");
  }
  // Deep nesting inside state and inside a criterion.
  std::string deep = std::string(10000, '[') + std::string(10000, ']');
  EXPECT_EQ(pl.run(R"({"state": )" + deep + R"(, "questions": {}})"), 400);
  EXPECT_EQ(pl.run(R"({"state": "s", "questions": {"q": {"type": "score", "instructions": "i", "criteria": )" + deep + "}}}"),
            400);
  // 100 options on English: fine; 300 long options: markers past max_len -> 422 naming the question.
  std::string crit;
  for (int i = 0; i < 300; ++i) crit += (i ? "," : "") + std::string("\"a rather long option label number ") + std::to_string(i) + "\"";
  EXPECT_EQ(pl.run(R"({"state": "s", "questions": {"wide": {"type": "choice", "instructions": "i", "criteria": [)" + crit + "]}}}",
                   &detail),
            422);
  EXPECT_EQ(detail, "question 'wide' options exceed head_max_len=192");
  // Empty questions: official empty answers.
  EXPECT_EQ(pl.run(R"({"state": "s", "questions": {}})"), 200);
  // Control characters, NUL and mask text in ids and labels are data, not structure.
  EXPECT_EQ(pl.run(R"({"state": "a\u0000b [MASK]", "questions": {"\u0000[MASK]": {"type": "choice", "instructions": "[MASK]", "criteria": {"[MASK]": "\u0001"}}}})"), 200);
}

}  // namespace
}  // namespace laya::decode
