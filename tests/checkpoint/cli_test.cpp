// `laya-engine check` and `synth` as scripts use them: exit codes and messages.
#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "test_util.h"

namespace laya::checkpoint {
namespace {

using namespace testing;
using ::testing::HasSubstr;

struct Run {
  int rc;
  std::string out;
};

Run run(const std::string& args) {
  std::string cmd = laya::test::engine_binary().string() + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  Run r{-1, {}};
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = ::pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(Cli, SynthThenCheckAcceptsTiny) {
  auto root = laya::test::make_temp_dir("cli");
  auto s = run("synth --layout tiny --seed 4 --layers 4 " + (root / "t").string());
  ASSERT_EQ(s.rc, 0) << s.out;
  auto c = run("check " + (root / "t").string());
  EXPECT_EQ(c.rc, 0) << c.out;
  EXPECT_THAT(c.out, HasSubstr("kind: tiny"));
  EXPECT_THAT(c.out, HasSubstr("result: OK"));
  EXPECT_THAT(c.out, HasSubstr("integrity: modified or unknown"));
  EXPECT_THAT(c.out, HasSubstr("4 layers"));
  fs::remove_all(root);
}

TEST(Cli, CheckRejectsACorruptCheckpointWithEveryProblem) {
  TinyCheckpoint ck;
  auto r = RawSafetensors::load(ck.weights());
  r.header["scorer.1.weight"]["shape"] = {64, 256};
  r.save(ck.weights());
  fs::remove(ck.dir / "tokenizer" / "tokenizer.json");
  auto c = run("check " + ck.dir.string());
  EXPECT_EQ(c.rc, 1) << c.out;
  EXPECT_THAT(c.out, HasSubstr("result: INVALID (2 problems)"));
  EXPECT_THAT(c.out, HasSubstr("scorer.1.weight: expected [128, 128], found [64, 256]"));
  EXPECT_THAT(c.out, HasSubstr("tokenizer.json: file is missing"));
}

TEST(Cli, CheckOfAMissingDirectoryFails) {
  auto c = run("check /nonexistent/laya-ckpt");
  EXPECT_EQ(c.rc, 1);
  EXPECT_THAT(c.out, HasSubstr("/nonexistent/laya-ckpt"));
}

TEST(Cli, SynthRejectsBadArguments) {
  auto root = laya::test::make_temp_dir("cli");
  EXPECT_NE(run("synth --layout huge --seed 1 " + (root / "x").string()).rc, 0);
  auto r = run("synth --layout tiny --hidden 100 " + (root / "y").string());
  EXPECT_EQ(r.rc, 1);
  EXPECT_THAT(r.out, HasSubstr("multiple of 64"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace laya::checkpoint
