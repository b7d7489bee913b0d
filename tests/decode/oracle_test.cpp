// The official laya 0.3.20 sequence builder and decoder on ~600 generated requests
// (tests/data/api/oracle_cases{,_multilingual}.jsonl.gz, written by tools/oracle/rows_decode_oracle.py): rows (length,
// markers, qtype, FNV-1a of the ids) and the exact response bytes; error cases with the official
// status and detail (or, for documented divergences, our stricter status).
#include <gtest/gtest.h>

#include <charconv>
#include <filesystem>
#include <string>

#include "api/json.h"
#include "api/python_json.h"
#include "api/request.h"
#include "decode/answers.h"
#include "prompt/rows.h"
#include "support/golden_meta.h"
#include "support/gz_lines.h"
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

std::string fnv64(std::span<const int32_t> ids) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int32_t v : ids) {
    auto u = static_cast<uint32_t>(v);
    for (int b = 0; b < 4; ++b) {
      h ^= (u >> (8 * b)) & 0xFF;
      h *= 0x100000001b3ull;
    }
  }
  return fmt::format("{:016x}", h);
}

float parse_f32(const std::string& s) {
  float v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

struct OracleSet {
  std::shared_ptr<const tokenizer::Tokenizer> tok;
  tokenizer::SpecialTokens special;
  std::map<std::string, model::AgentConfig> cfgs;
};

void run_oracle_file(const OracleSet& set, const std::string& file, int min_ok, int min_err) {
  const auto& tok = set.tok;
  const auto& special = set.special;
  const auto& cfgs = set.cfgs;
  ResponseOptions opts;
  opts.extended_usage = false;  // 0.3.20's usage has two keys
  auto lines = test::gz_lines(test::source_dir() / "tests/data/api" / file);
  ASSERT_FALSE(lines.empty()) << "missing tests/data/api/" << file;
  int n_ok = 0, n_err = 0, bad = 0, line_no = 0;
  for (const auto& line : lines) {
    ++line_no;
    Json c = api::parse_json(line);
    const std::string& kind = c.find("kind")->as_string();
    const auto& cfg = cfgs.at(c.find("cfg")->as_string());
    const std::string& body = c.find("body")->as_string();
    auto report = [&](const std::string& what) {
      if (bad++ < 8) ADD_FAILURE() << "line " << line_no << ": " << what << "\nbody: " << body.substr(0, 600);
    };
    if (kind == "ok") {
      ++n_ok;
      try {
        api::DecisionRequest req = api::parse_request(body);
        prompt::PackedRequest p = prompt::build_rows(req, *tok, special, cfg);
        const auto& rows = c.find("rows")->items();
        if (static_cast<size_t>(p.batch.rows()) != rows.size()) {
          report(fmt::format("{} rows, want {}", p.batch.rows(), rows.size()));
          continue;
        }
        bool rows_ok = true;
        std::vector<float> logits, act;
        for (int r = 0; r < p.batch.rows(); ++r) {
          const auto& want = rows[static_cast<size_t>(r)].items();
          auto ids = std::span(p.batch.token_ids)
                         .subspan(static_cast<size_t>(p.batch.row_offsets[r]), static_cast<size_t>(p.batch.row_length(r)));
          std::vector<int32_t> markers(p.batch.markers.begin() + p.batch.marker_offsets[r],
                                       p.batch.markers.begin() + p.batch.marker_offsets[r + 1]);
          std::vector<int32_t> want_markers;
          for (const auto& m : want[1].items()) want_markers.push_back(static_cast<int32_t>(m.as_double()));
          if (p.batch.row_length(r) != want[0].as_double() || markers != want_markers ||
              p.batch.qtypes[static_cast<size_t>(r)] != want[2].as_double() || fnv64(ids) != want[3].as_string()) {
            report(fmt::format("row {}: len {} markers {} differ from len {} markers {}", r, p.batch.row_length(r),
                               fmt::join(markers, ","), want[0].number_text(), fmt::join(want_markers, ",")));
            rows_ok = false;
            break;
          }
          for (const auto& v : c.find("logits")->items()[static_cast<size_t>(r)].items())
            logits.push_back(parse_f32(v.as_string()));
          for (const auto& v : c.find("act")->items()[static_cast<size_t>(r)].items())
            act.push_back(parse_f32(v.as_string()));
        }
        if (!rows_ok) continue;
        std::string got = decode_response(req, p, logits, act, 2, cfg, opts);
        const std::string& want = c.find("response")->as_string();
        if (got != want) report("response\n got  " + got.substr(0, 800) + "\n want " + want.substr(0, 800));
      } catch (const Error& e) {
        report(std::string("threw: ") + e.what());
      }
    } else {
      ++n_err;
      int status = 200;
      std::string detail;
      try {
        api::DecisionRequest req = api::parse_request(body);
        prompt::build_rows(req, *tok, special, cfg);
      } catch (const Error& e) {
        status = http_status(e.kind());
        detail = e.what();
      }
      if (const Json* ours = c.find("ours")) {
        if (status != ours->as_double()) report(fmt::format("status {} ({}), want our documented {}", status, detail, ours->number_text()));
        else if (detail.empty()) report("empty detail");
      } else {
        if (status != c.find("status")->as_double() || detail != c.find("detail")->as_string())
          report(fmt::format("got {} '{}', official {} '{}'", status, detail, c.find("status")->number_text(),
                             c.find("detail")->as_string()));
      }
    }
  }
  EXPECT_GE(n_ok, min_ok);
  EXPECT_GE(n_err, min_err);
  EXPECT_EQ(bad, 0) << "of " << n_ok << " ok and " << n_err << " error cases";
}

TEST(Oracle, EnglishAndTypedConfigsMatchOfficialPackage) {
  fs::path fx = test::require_fixtures();
  OracleSet set;
  set.tok = tokenizer::Tokenizer::from_file(fx / "tokenizer-modernbert" / "tokenizer.json");
  set.special = tokenizer::load_special_tokens(fx / "tokenizer-modernbert" / "original" / "tokenizer_config.json", *set.tok);
  set.cfgs = {{"english", config_from_meta(read_json(fx / "goldens" / "english" / "meta.json"))},
              {"typed", config_from_meta(read_json(fx / "goldens" / "typed-decisions" / "meta.json"))}};
  run_oracle_file(set, "oracle_cases.jsonl.gz", 500, 25);
}

TEST(Oracle, MultilingualConfigWithStandInTokenizerMatchesOfficialPackage) {
  fs::path fx = test::require_fixtures();
  OracleSet set;
  set.tok = tokenizer::Tokenizer::from_file(fx / "tokenizer-mmbert-standin" / "tokenizer.json");
  Json meta = read_json(fx / "goldens" / "multilingual" / "meta.json");
  set.special = special_from_meta(meta);
  set.cfgs = {{"multi", config_from_meta(meta)}};
  run_oracle_file(set, "oracle_cases_multilingual.jsonl.gz", 150, 0);
}

}  // namespace
}  // namespace laya::decode
