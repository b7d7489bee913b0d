// `laya-engine tokenize` (the CLI contract of design.md §7): JSON string lines in, id arrays out.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_util.h"

namespace laya::tokenizer::test {
namespace {

TEST(TokenizerCli, TokenizeLinesToIdArrays) {
  const auto bin = laya::test::engine_binary();
  ASSERT_TRUE(std::filesystem::exists(bin)) << bin << " not built";
  const auto dir = laya::test::make_temp_dir("laya-tok-cli");
  {
    std::ofstream in(dir / "in.jsonl");
    in << "\"hello   world\"\n\"a [MASK] b\"\n\"\"\n42\n\"caf\\u00e9\"\n";
  }
  const std::string cmd = bin.string() + " tokenize --tokenizer " + (laya::test::require_fixtures() / "tokenizer-modernbert").string() +
                          " < " + (dir / "in.jsonl").string() + " > " + (dir / "out.txt").string() + " 2> " + (dir / "err.txt").string();
  const int rc = std::system(cmd.c_str());
  EXPECT_NE(rc, 0) << "a line that is not a JSON string must make the command fail";
  std::ifstream out(dir / "out.txt");
  std::vector<std::string> lines;
  for (std::string l; std::getline(out, l);) lines.push_back(l);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "[25521,50275,10186]");
  EXPECT_EQ(lines[1], "[66,50284,270]");
  EXPECT_EQ(lines[2], "[]");
  EXPECT_NE(lines[3].find("\"error\""), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("line 4"), std::string::npos) << lines[3];
  EXPECT_EQ(lines[4], "[68,2320,860]") << "café (HF tokenizers 0.23.3)";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace laya::tokenizer::test
