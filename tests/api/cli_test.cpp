// `laya-engine pack` / `decode` end to end (the binary must be built: it is part of the default build).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "api/json.h"
#include "api/python_json.h"
#include "support/paths.h"

namespace laya::api {
namespace {

namespace fs = std::filesystem;

// A checkpoint directory without weights: what pack/decode read.
fs::path make_model_dir(const fs::path& root, const std::string& meta_set) {
  fs::path fx = test::require_fixtures();
  fs::path dir = root / meta_set;
  fs::create_directories(dir / "tokenizer");
  fs::create_directories(dir / "encoder");
  fs::copy_file(fx / "tokenizer-modernbert" / "tokenizer.json", dir / "tokenizer" / "tokenizer.json");
  fs::copy_file(fx / "tokenizer-modernbert" / "original" / "tokenizer_config.json", dir / "tokenizer" / "tokenizer_config.json");
  fs::copy_file(fx / "tokenizer-modernbert" / "original" / "config.json", dir / "encoder" / "config.json");
  Json meta = parse_json(test::read_text(fx / "goldens" / meta_set / "meta.json"));
  std::ofstream(dir / "rl_agent_config.json") << python_dumps(*meta.find("config"));
  return dir;
}

int run(const std::string& cmd, std::string* out) {
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return -1;
  char buf[65536];
  size_t n;
  out->clear();
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  int rc = pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = test::engine_binary();
    ASSERT_TRUE(fs::exists(bin_)) << bin_ << " is not built (cmake --build ... --target laya-engine)";
    root_ = test::make_temp_dir("laya_api_cli");
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path bin_, root_;
};

TEST_F(Cli, PackPrintsTheOfficialEnglishRows) {
  fs::path model = make_model_dir(root_, "english");
  Json golden = parse_json(test::read_text(test::require_fixtures() / "goldens" / "english-packing" / "packing-golden.json"));
  std::ofstream input(root_ / "in.jsonl");
  for (const auto& c : golden.items()) input << python_dumps_compact(*c.find("request")) << "\n";
  input << "{\"state\": null, \"questions\": {}}\n";
  input.close();
  std::string out;
  int rc = run(fmt::format("'{}' pack --model '{}' --input '{}' 2>/dev/null", bin_.string(), model.string(),
                           (root_ / "in.jsonl").string()),
               &out);
  EXPECT_EQ(rc, 1);  // the last line is an error
  std::istringstream lines(out);
  std::string line;
  size_t i = 0;
  while (std::getline(lines, line)) {
    Json got = parse_json(line);
    if (i < golden.items().size()) {
      const Json& want = *golden.items()[i].find("expected");
      const auto& rows = got.find("rows")->items();
      const auto& items = want.find("items")->items();
      ASSERT_EQ(rows.size(), items.size()) << line;
      for (size_t r = 0; r < rows.size(); ++r) {
        EXPECT_EQ(python_dumps(*rows[r].find("ids")), python_dumps(*items[r].find("ids")));
        EXPECT_EQ(python_dumps(*rows[r].find("markers")), python_dumps(*items[r].find("markers")));
      }
      EXPECT_EQ(got.find("usage")->find("input_tokens")->number_text(), want.find("usage")->number_text());
    } else {
      EXPECT_EQ(got.find("error")->find("status")->number_text(), "400");
    }
    ++i;
  }
  EXPECT_EQ(i, golden.items().size() + 1);
}

TEST_F(Cli, DecodeReproducesAGoldenResponse) {
  fs::path model = make_model_dir(root_, "typed-decisions");
  Json g = parse_json(test::read_text(test::require_fixtures() / "goldens" / "typed-decisions" / "case_quickstart.json"));
  Json line = Json::make_object();
  Json request = Json::make_object();
  request.set("state", *g.find("state"));
  request.set("questions", *g.find("questions"));
  line.set("request", request);
  line.set("logits", *g.find("logits"));
  line.set("act_logits", *g.find("act_logits"));
  std::ofstream(root_ / "in.jsonl") << python_dumps_compact(line) << "\n";
  std::string out;
  int rc = run(fmt::format("'{}' decode --model '{}' --input '{}' --legend-as-text", bin_.string(), model.string(),
                           (root_ / "in.jsonl").string()),
               &out);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(out, python_dumps_compact(*g.find("result")) + "\n");
}

}  // namespace
}  // namespace laya::api
