#include "paths.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>

namespace laya::test {

std::filesystem::path fixtures_dir() {
  if (const char* env = std::getenv("LAYA_FIXTURES_DIR"); env && *env) return env;
  return LAYA_DEFAULT_FIXTURES_DIR;
}

std::filesystem::path require_fixtures() {
  auto dir = fixtures_dir();
  if (!std::filesystem::is_directory(dir)) {
    ADD_FAILURE() << "shared fixtures not found at " << dir
                  << " (set LAYA_FIXTURES_DIR or configure -DLAYA_FIXTURES_DIR=...)";
  }
  return dir;
}

std::filesystem::path source_dir() { return LAYA_SOURCE_DIR; }

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::filesystem::path make_temp_dir(const char* prefix) {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto dir = std::filesystem::temp_directory_path() /
               (std::string(prefix) + "-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    if (std::filesystem::create_directory(dir)) return dir;
  }
  throw std::runtime_error("cannot create a temporary directory");
}

std::filesystem::path engine_binary() { return std::filesystem::path(LAYA_BINARY_DIR) / "bin" / "laya-engine"; }

}  // namespace laya::test
