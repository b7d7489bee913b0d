// Row construction against the official goldens (laya 0.4.0 typed-decisions/multilingual, laya 0.3.20
// English packing) and the English token counts of spec §9.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "api/json.h"
#include "api/python_json.h"
#include "api/request.h"
#include "prompt/rows.h"
#include "support/golden_meta.h"
#include "support/paths.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace laya::prompt {
namespace {

namespace fs = std::filesystem;
using api::Json;
using test::read_json;
using test::special_from_meta;

std::vector<int32_t> ints(const Json& arr) {
  std::vector<int32_t> v;
  for (const auto& x : arr.items()) v.push_back(static_cast<int32_t>(x.as_double()));
  return v;
}

std::span<const int32_t> row_ids(const engine::Batch& b, int r) {
  return std::span(b.token_ids).subspan(static_cast<size_t>(b.row_offsets[r]), static_cast<size_t>(b.row_length(r)));
}
std::span<const int32_t> row_markers(const engine::Batch& b, int r) {
  return std::span(b.markers).subspan(static_cast<size_t>(b.marker_offsets[r]), static_cast<size_t>(b.row_markers(r)));
}

struct Env {
  std::shared_ptr<const tokenizer::Tokenizer> tok;
  tokenizer::SpecialTokens special;
  RowLimits limits;
};

Env modernbert_env(int32_t max_len, int32_t head_max_len) {
  fs::path fx = test::require_fixtures();
  Env e;
  e.tok = tokenizer::Tokenizer::from_file(fx / "tokenizer-modernbert" / "tokenizer.json");
  e.special = tokenizer::load_special_tokens(fx / "tokenizer-modernbert" / "original" / "tokenizer_config.json", *e.tok);
  e.limits = {max_len, head_max_len};
  return e;
}

api::DecisionRequest request_of(const Json& state, const Json& questions) {
  Json body = Json::make_object();
  body.set("state", state);
  body.set("questions", questions);
  return api::request_from_json(std::move(body));
}

TEST(Rows, SpecialTokensOfModernBert) {
  Env e = modernbert_env(512, 192);
  EXPECT_EQ(e.special.mask_token, "[MASK]");
  EXPECT_EQ(e.special.cls_id, 50281);
  EXPECT_EQ(e.special.sep_id, 50282);
  EXPECT_EQ(e.special.mask_id, 50284);
  EXPECT_EQ(e.special.pad_id, 50283);
}

void check_golden_set(const std::string& set, const Env& env) {
  fs::path dir = test::require_fixtures() / "goldens" / set;
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().rfind("case_", 0) != 0) continue;
    // laya 0.4.0 shortlists 40 options down to 20 before building rows; 0.3.20 has no shortlist
    // (documented difference, docs/api.md). The oracle goldens cover many-option rows instead.
    if (entry.path().filename() == "case_shortlist_many_options.json") continue;
    SCOPED_TRACE(entry.path().string());
    Json g = read_json(entry.path());
    api::DecisionRequest req = request_of(*g.find("state"), *g.find("questions"));
    EXPECT_EQ(req.state_text, g.find("serialized_state")->as_string());
    PackedRequest p = build_rows(req, *env.tok, env.special, env.limits);
    const auto& pq = g.find("per_question")->items();
    ASSERT_EQ(p.batch.rows(), static_cast<int32_t>(pq.size()));
    for (int r = 0; r < p.batch.rows(); ++r) {
      SCOPED_TRACE(pq[static_cast<size_t>(r)].find("id")->as_string());
      auto want_ids = ints(*pq[static_cast<size_t>(r)].find("input_ids"));
      auto want_markers = ints(*pq[static_cast<size_t>(r)].find("markers"));
      auto got_ids = row_ids(p.batch, r);
      auto got_markers = row_markers(p.batch, r);
      EXPECT_EQ(std::vector<int32_t>(got_ids.begin(), got_ids.end()), want_ids);
      EXPECT_EQ(std::vector<int32_t>(got_markers.begin(), got_markers.end()), want_markers);
      EXPECT_EQ(p.batch.qtypes[static_cast<size_t>(r)], pq[static_cast<size_t>(r)].find("qtype")->as_double());
      // options as rendered
      const auto& opts = pq[static_cast<size_t>(r)].find("options")->items();
      ASSERT_EQ(opts.size(), req.questions[static_cast<size_t>(r)].option_texts.size());
      for (size_t i = 0; i < opts.size(); ++i) EXPECT_EQ(opts[i].as_string(), req.questions[static_cast<size_t>(r)].option_texts[i]);
    }
    Json usage = *g.find("result")->find("usage");
    EXPECT_EQ(usage_json(p.usage), api::python_dumps_compact(usage));
    ++cases;
  }
  EXPECT_GE(cases, 13);
}

TEST(Rows, TypedDecisionsGoldens) { check_golden_set("typed-decisions", modernbert_env(1024, 256)); }

TEST(Rows, MultilingualGoldensWithStandInTokenizer) {
  fs::path fx = test::require_fixtures();
  Env e;
  e.tok = tokenizer::Tokenizer::from_file(fx / "tokenizer-mmbert-standin" / "tokenizer.json");
  e.special = special_from_meta(read_json(fx / "goldens" / "multilingual" / "meta.json"));
  e.limits = {1024, 256};
  check_golden_set("multilingual", e);
}

TEST(Rows, EnglishPackingGoldens) {
  Env e = modernbert_env(512, 192);
  Json g = read_json(test::require_fixtures() / "goldens" / "english-packing" / "packing-golden.json");
  ASSERT_EQ(g.items().size(), 12u);
  for (const auto& c : g.items()) {
    SCOPED_TRACE(c.find("name")->as_string());
    api::DecisionRequest req = api::request_from_json(*c.find("request"));
    PackedRequest p = build_rows(req, *e.tok, e.special, e.limits);
    const Json& exp = *c.find("expected");
    const auto& items = exp.find("items")->items();
    ASSERT_EQ(p.batch.rows(), static_cast<int32_t>(items.size()));
    for (int r = 0; r < p.batch.rows(); ++r) {
      auto got_ids = row_ids(p.batch, r);
      auto got_markers = row_markers(p.batch, r);
      EXPECT_EQ(std::vector<int32_t>(got_ids.begin(), got_ids.end()), ints(*items[static_cast<size_t>(r)].find("ids")));
      EXPECT_EQ(std::vector<int32_t>(got_markers.begin(), got_markers.end()),
                ints(*items[static_cast<size_t>(r)].find("markers")));
      EXPECT_EQ(p.batch.qtypes[static_cast<size_t>(r)], items[static_cast<size_t>(r)].find("qtype")->as_double());
    }
    EXPECT_EQ(p.usage.input_tokens, exp.find("usage")->as_double());
  }
}

TEST(Rows, EnglishSpecVectorsTokenCounts) {
  Env e = modernbert_env(512, 192);
  auto count = [&](const std::string& body) {
    return build_rows(api::parse_request(body), *e.tok, e.special, e.limits).usage.input_tokens;
  };
  const std::string st1 = R"("state": "Please refund the duplicate charge.")";
  const std::string st2 = R"("state": "I was charged twice for my order. Please refund the duplicate today.")";
  const std::string refund = R"("refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"})";
  const std::string dept =
      R"("department": {"type": "choice", "instructions": "Which team should handle this?", "criteria": {"billing": "Charges and refunds", "technical": "Software problems"}})";
  const std::string urg =
      R"("urgency": {"type": "score", "instructions": "How urgent is the request?", "criteria": ["Not urgent", "Needs attention soon", "Needs attention immediately"]})";
  EXPECT_EQ(count("{" + st1 + ", \"questions\": {" + refund + "}}"), 40);
  EXPECT_EQ(count("{" + st2 + ", \"questions\": {" + dept + "}}"), 40);
  EXPECT_EQ(count("{" + st2 + ", \"questions\": {" + urg + "}}"), 49);
  EXPECT_EQ(count("{" + st2 + ", \"questions\": {" + refund + "}}"), 48);
  EXPECT_EQ(count("{" + st2 + ", \"questions\": {" + dept + ", " + urg + ", " + refund + "}}"), 137);
}

TEST(Rows, MarkersPastMaxLenAre422) {
  Env e = modernbert_env(64, 48);
  std::string crit;
  for (int i = 0; i < 30; ++i) crit += (i ? "," : "") + std::string("\"option number ") + std::to_string(i) + "\"";
  auto req = api::parse_request(R"({"state": "s", "questions": {"many": {"type": "choice", "instructions": "i", "criteria": [)" +
                                crit + "]}}}");
  try {
    build_rows(req, *e.tok, e.special, e.limits);
    FAIL();
  } catch (const Error& err) {
    EXPECT_EQ(http_status(err.kind()), 422);
    EXPECT_STREQ(err.what(), "question 'many' options exceed head_max_len=48");
  }
}

TEST(Rows, MaskTextReplacedAndListStateKeepsNewest) {
  Env e = modernbert_env(40, 192);
  auto req = api::parse_request(
      R"({"state": ["first turn words", "second turn", "x [MASK] y newest"], "questions": {"q": {"type": "noul", "instructions": "a [MASK] b"}}})");
  PackedRequest p = build_rows(req, *e.tok, e.special, e.limits);
  auto ids = row_ids(p.batch, 0);
  // no mask id apart from the two option markers
  int masks = 0;
  for (int32_t id : ids) masks += id == e.special.mask_id;
  EXPECT_EQ(masks, 2);
  EXPECT_EQ(static_cast<int32_t>(ids.size()), 40);
  std::vector<int32_t> state = e.tok->encode(replace_mask(req.state_text, "[MASK]"));
  // the row ends with the newest state tokens then [SEP]
  EXPECT_EQ(ids[ids.size() - 2], state.back());
  EXPECT_TRUE(p.usage.truncated);
  EXPECT_EQ(p.usage.truncated_questions, std::vector<std::string>{"q"});
  EXPECT_EQ(replace_mask("[MASK][MASK]x", "[MASK]"), "  x");
}

}  // namespace
}  // namespace laya::prompt
