#include "checkpoint/demo.h"

#include <cstdlib>
#include <thread>

#include "checkpoint/checkpoint.h"
#include "test_util.h"

namespace laya::checkpoint {
namespace {

using namespace testing;

class DemoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = laya::test::make_temp_dir("demo");
    ::setenv("LAYA_CACHE_DIR", (root_ / "cache").c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("LAYA_CACHE_DIR");
    fs::remove_all(root_);
  }
  fs::path root_;
};

TEST_F(DemoTest, GeneratedOnceIntoTheCacheAndReused) {
  bool is_demo = false;
  auto dir = resolve_model_dir("demo", &is_demo);
  EXPECT_TRUE(is_demo);
  EXPECT_EQ(dir, root_ / "cache" / "demo-v1");
  auto c = Checkpoint::open(dir);
  EXPECT_EQ(c.kind(), "tiny");
  EXPECT_TRUE(c.is_synthetic());
  const auto mtime = fs::last_write_time(dir / "model.safetensors");
  EXPECT_EQ(resolve_model_dir("demo"), dir);
  EXPECT_EQ(fs::last_write_time(dir / "model.safetensors"), mtime);
  // Nothing temporary left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root_ / "cache")) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(DemoTest, ConcurrentFirstUseIsSafe) {
  std::vector<std::thread> ts;
  std::vector<fs::path> got(4);
  std::vector<std::string> errors(4);
  for (int i = 0; i < 4; ++i) {
    ts.emplace_back([&, i] {
      try {
        got[i] = resolve_model_dir("demo");
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& t : ts) t.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(errors[i], "");
    EXPECT_EQ(got[i], root_ / "cache" / "demo-v1");
  }
  EXPECT_NO_THROW(Checkpoint::open(root_ / "cache" / "demo-v1"));
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root_ / "cache")) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(DemoTest, PathsMustExist) {
  bool is_demo = true;
  EXPECT_EQ(resolve_model_dir(root_.string(), &is_demo), root_);
  EXPECT_FALSE(is_demo);
  expect_error([&] { resolve_model_dir((root_ / "nope").string()); }, ErrorKind::not_found, {"nope"});
  expect_error([&] { resolve_model_dir(""); }, ErrorKind::not_found, {"does not exist"});
}

}  // namespace
}  // namespace laya::checkpoint
