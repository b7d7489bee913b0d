// Zero mismatches against Hugging Face tokenizers on the committed seeded corpus
// (tests/data/tokenizer/corpus-*.jsonl.gz, written by tools/oracle/tokenizer_corpus.py).
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/gz_lines.h"
#include "test_util.h"

namespace laya::tokenizer::test {
namespace {

std::string show(const std::vector<int32_t>& v) {
  std::ostringstream o;
  o << "[";
  for (std::size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
  o << "]";
  return o.str();
}

void check_corpus(const Tokenizer& tok, const std::string& file, std::size_t min_count) {
  const auto lines = laya::test::gz_lines(laya::test::source_dir() / "tests/data/tokenizer" / file);
  ASSERT_GT(lines.size(), 1u);
  const auto header = nlohmann::json::parse(lines[0]);
  const std::size_t count = header.at("count").get<std::size_t>();
  ASSERT_GE(count, min_count);
  ASSERT_EQ(lines.size(), count + 1) << file << " is truncated";
  std::size_t mismatches = 0;
  std::map<std::string, std::size_t> by_kind;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto row = nlohmann::json::parse(lines[i]);
    const std::string& text = row.at("t").get_ref<const std::string&>();
    const auto want = row.at("ids").get<std::vector<int32_t>>();
    const auto got = tok.encode(text);
    if (got != want) {
      ++mismatches;
      ++by_kind[row.at("k").get<std::string>()];
      if (mismatches <= 5) {
        ADD_FAILURE() << file << " line " << i << " [" << row.at("k").get<std::string>() << "] "
                      << nlohmann::json(text).dump() << "\n  HF:  " << show(want) << "\n  C++: " << show(got);
      }
    }
  }
  std::string kinds;
  for (const auto& [k, n] : by_kind) kinds += " " + k + "=" + std::to_string(n);
  EXPECT_EQ(mismatches, 0u) << "of " << count << " strings (tokenizers " << header.at("tokenizers").get<std::string>()
                            << ");" << kinds;
}

// A fixture tokenizer with the variant's patch (top-level keys, "model.<key>") applied, as the
// oracle script does.
std::shared_ptr<const Tokenizer> patched(const std::string& file) {
  const auto lines = laya::test::gz_lines(laya::test::source_dir() / "tests/data/tokenizer" / file);
  if (lines.empty()) return nullptr;
  const auto header = nlohmann::json::parse(lines[0]);
  std::ifstream in(laya::test::require_fixtures() / header.at("tokenizer").get<std::string>());
  auto j = nlohmann::json::parse(in);
  for (const auto& [k, v] : header.at("patch").items()) {
    if (k.rfind("model.", 0) == 0) j["model"][k.substr(6)] = v;
    else j[k] = v;
  }
  return Tokenizer::from_json(j.dump(), file);
}

class TokenizerVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(TokenizerVariant, ZeroMismatches) {
  const std::string file = "variant-" + GetParam() + ".jsonl.gz";
  auto tok = patched(file);
  ASSERT_NE(tok, nullptr);
  check_corpus(*tok, file, 1000);
}

INSTANTIATE_TEST_SUITE_P(Components, TokenizerVariant,
                         ::testing::Values("mmbert-gemma-normalizer", "mmbert-metaspace-first", "mmbert-split-nosplit",
                                           "modernbert-prefix-space", "modernbert-noregex-ignore-merges"),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string n = param_info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(TokenizerParity, ModernBertCorpusZeroMismatches) { check_corpus(*modernbert(), "corpus-modernbert.jsonl.gz", 20000); }

TEST(TokenizerParity, MmbertStandinCorpusZeroMismatches) { check_corpus(*standin(), "corpus-mmbert-standin.jsonl.gz", 5000); }

}  // namespace
}  // namespace laya::tokenizer::test
