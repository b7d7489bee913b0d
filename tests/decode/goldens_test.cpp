// End to end on the official goldens: request -> rows -> (golden logits) -> response bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "api/json.h"
#include "api/python_json.h"
#include "api/request.h"
#include "decode/answers.h"
#include "prompt/rows.h"
#include "support/golden_meta.h"
#include "support/paths.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace laya::decode {
namespace {

namespace fs = std::filesystem;
using api::Json;
using test::config_from_meta;
using test::read_json;
using test::special_from_meta;

void check_set(const std::string& set, const fs::path& tokenizer_json) {
  fs::path dir = test::require_fixtures() / "goldens" / set;
  Json meta = read_json(dir / "meta.json");
  model::AgentConfig cfg = config_from_meta(meta);
  auto special = special_from_meta(meta);
  auto tok = tokenizer::Tokenizer::from_file(tokenizer_json);
  ResponseOptions opts;
  opts.legend_as_text = true;  // laya 0.4.0 renders structured legend values as text
  int n = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("case_", 0) != 0 || name == "case_shortlist_many_options.json") continue;  // 0.4.0-only shortlist
    SCOPED_TRACE(entry.path().string());
    Json g = read_json(entry.path());
    Json body = Json::make_object();
    body.set("state", *g.find("state"));
    body.set("questions", *g.find("questions"));
    api::DecisionRequest req = api::request_from_json(std::move(body));
    prompt::PackedRequest packed = prompt::build_rows(req, *tok, special, cfg);
    std::vector<float> logits, act;
    const auto& lrows = g.find("logits")->items();
    const auto& arows = g.find("act_logits")->items();
    ASSERT_EQ(lrows.size(), req.questions.size());
    for (size_t r = 0; r < lrows.size(); ++r) {
      for (size_t i = 0; i < req.questions[r].n_options(); ++i)
        logits.push_back(static_cast<float>(lrows[r].items()[i].as_double()));
      for (const auto& a : arows[r].items()) act.push_back(static_cast<float>(a.as_double()));
    }
    std::string got = decode_response(req, packed, logits, act, 2, cfg, opts);
    EXPECT_EQ(got, api::python_dumps_compact(*g.find("result")));
    ++n;
  }
  EXPECT_GE(n, 13);
}

TEST(Goldens, TypedDecisionsResponsesByteForByte) {
  check_set("typed-decisions", test::require_fixtures() / "tokenizer-modernbert" / "tokenizer.json");
}

TEST(Goldens, MultilingualResponsesByteForByte) {
  check_set("multilingual", test::require_fixtures() / "tokenizer-mmbert-standin" / "tokenizer.json");
}

}  // namespace
}  // namespace laya::decode
