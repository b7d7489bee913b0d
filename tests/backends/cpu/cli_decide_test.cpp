// `laya-engine decide` and `bench` end to end through the binary on a tiny synthetic checkpoint.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/paths.h"

namespace {

namespace fs = std::filesystem;

struct Run {
  int status = -1;
  std::string out;
};

Run run(const std::string& cmd) {
  Run r;
  FILE* p = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  r.status = ::pclose(p);
  return r;
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  size_t a = 0;
  while (a < s.size()) {
    size_t b = s.find('\n', a);
    if (b == std::string::npos) b = s.size();
    v.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return v;
}

class CliDecide : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = laya::test::make_temp_dir("laya_cpu_cli");
    bin_ = laya::test::engine_binary().string();
    ASSERT_TRUE(fs::exists(bin_)) << "build the laya-engine target first: " << bin_;
    ASSERT_EQ(run("'" + bin_ + "' synth --layout tiny --seed 3 '" + (dir_ / "m").string() + "'").status, 0);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static inline fs::path dir_;
  static inline std::string bin_;
};

TEST_F(CliDecide, AnswersEachLineAndReportsBadLinesInPlace) {
  const fs::path in = dir_ / "requests.jsonl";
  std::ofstream(in) << R"({"state":"charged twice","questions":{"a":{"type":"choice","instructions":"Team?","criteria":{"billing":"money","tech":null}},"b":{"type":"noul","instructions":"Refund?"}}})"
                    << "\n\nnot json\n"
                    << R"({"state":"x","questions":{"q":{"type":"bogus","instructions":"?"}}})" << "\n"
                    << R"({"state":"y","questions":{"s":{"type":"score","instructions":"How?","criteria":["low","high"]}}})" << "\n";
  const auto r = run("'" + bin_ + "' decide --model '" + (dir_ / "m").string() + "' --input '" + in.string() + "'");
  EXPECT_NE(r.status, 0) << "a failed line makes the exit code non-zero";
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 4u) << r.out;  // the blank line is skipped
  const auto first = nlohmann::json::parse(out[0]);
  EXPECT_EQ(first.at("model"), "laya-rl-agent");
  EXPECT_EQ(first.at("answers").at("a").at("type"), "choice");
  EXPECT_EQ(first.at("answers").at("b").at("type"), "noul");
  EXPECT_EQ(out[1], R"({"detail":"request body must be valid JSON"})");
  EXPECT_EQ(nlohmann::json::parse(out[2]).at("detail").get<std::string>().rfind("question 'q': unknown type", 0), 0u);
  EXPECT_EQ(nlohmann::json::parse(out[3]).at("answers").at("s").at("type"), "score");

  // only good lines: exit code 0, and stdin works the same as --input
  const auto ok = run("head -c 100000 '" + in.string() + "' | head -n 1 | '" + bin_ + "' decide --model '" +
                      (dir_ / "m").string() + "'");
  EXPECT_EQ(ok.status, 0);
  EXPECT_EQ(lines(ok.out).at(0), out[0]) << "same request, same bytes";
}

TEST_F(CliDecide, DumpsIntermediatesPerLine) {
  const fs::path in = dir_ / "one.jsonl";
  std::ofstream(in) << R"({"state":"hello","questions":{"n":{"type":"noul","instructions":"Greeting?"}}})" << "\n";
  const fs::path dump = dir_ / "dump";
  const auto r = run("'" + bin_ + "' decide --model '" + (dir_ / "m").string() + "' --input '" + in.string() +
                     "' --dump '" + dump.string() + "' --dump-names embed,logits");
  ASSERT_EQ(r.status, 0);
  const auto index = nlohmann::json::parse(std::ifstream(dump / "1" / "index.json"));
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.at("logits").at(0), 2);  // one noul row: two options
  const auto rows = index.at("embed").at(0).get<size_t>(), cols = index.at("embed").at(1).get<size_t>();
  EXPECT_EQ(fs::file_size(dump / "1" / "embed.f32"), rows * cols * 4);
}

TEST_F(CliDecide, BenchPrintsOneJsonObjectPerShape) {
  const auto r =
      run("'" + bin_ + "' bench --model '" + (dir_ / "m").string() + "' --shapes 1x8,2x16,20+5+9 --warmup 0 --iters 2 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto out = lines(r.out);
  ASSERT_EQ(out.size(), 4u) << r.out;
  const auto a = nlohmann::json::parse(out[0]);
  EXPECT_EQ(a.at("shape"), "1x8");
  EXPECT_EQ(a.at("samples_ms").size(), 2u);
  EXPECT_EQ(nlohmann::json::parse(out[1]).at("rows"), 2);
  EXPECT_EQ(nlohmann::json::parse(out[1]).at("tokens"), 16);
  EXPECT_EQ(nlohmann::json::parse(out[1]).at("total_tokens"), 32);
  const auto mixed = nlohmann::json::parse(out[2]);  // rows of unequal lengths
  EXPECT_EQ(mixed.at("shape"), "20+5+9");
  EXPECT_EQ(mixed.at("rows"), 3);
  EXPECT_EQ(mixed.at("total_tokens"), 34);
  EXPECT_EQ(mixed.at("lengths"), nlohmann::json({20, 5, 9}));
  EXPECT_TRUE(nlohmann::json::parse(out[3]).contains("peak_rss_mb"));
  for (const char* bad : {"3y4", "2x", "x8", "2x8x", "8+", "+8", "8+1", "8++4", "0x8", "2x1", "65536x512", "9999999999x2"})
    EXPECT_NE(run("'" + bin_ + "' bench --model '" + (dir_ / "m").string() + "' --shapes " + bad + " --iters 1").status, 0)
        << bad;
  EXPECT_NE(run("'" + bin_ + "' decide --model '" + (dir_ / "m").string() + "' --backend tpu < /dev/null").status, 0);
}

// --precision is checked for every backend (the CPU backend is fp32 whatever it says).
TEST_F(CliDecide, PrecisionIsValidatedAndIgnoredByTheCpuBackend) {
  const std::string model = (dir_ / "m").string();
  const auto bad = run("sh -c \"'" + bin_ + "' decide --model '" + model + "' --precision fp8 < /dev/null 2>&1\"");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("--precision must be auto, bf16 or fp16 (got 'fp8')"), std::string::npos) << bad.out;
  const auto fp16 = run("'" + bin_ + "' bench --model '" + model + "' --precision fp16 --shapes 1x8 --warmup 0 --iters 1 --json");
  ASSERT_EQ(fp16.status, 0);
  EXPECT_EQ(nlohmann::json::parse(lines(fp16.out).at(0)).at("precision"), "fp32");
}

}  // namespace
