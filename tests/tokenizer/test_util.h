// Shared helpers of the tokenizer tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "support/paths.h"
#include "tokenizer/tokenizer.h"

namespace laya::tokenizer::test {

inline std::filesystem::path modernbert_path() { return laya::test::require_fixtures() / "tokenizer-modernbert" / "tokenizer.json"; }
inline std::filesystem::path standin_path() { return laya::test::require_fixtures() / "tokenizer-mmbert-standin" / "tokenizer.json"; }

// Loaded once per test binary (the stand-in takes a moment).
inline std::shared_ptr<const Tokenizer> modernbert() {
  static auto t = Tokenizer::from_file(modernbert_path());
  return t;
}
inline std::shared_ptr<const Tokenizer> standin() {
  static auto t = Tokenizer::from_file(standin_path());
  return t;
}

}  // namespace laya::tokenizer::test
