// Where tests find their data.
#pragma once

#include <filesystem>
#include <string>

namespace laya::test {

// The shared fixtures (real tokenizer, official goldens): $LAYA_FIXTURES_DIR, else the
// configured default (../shared/fixtures next to the source tree). Tests that need them call
// require_fixtures(), which fails the test with a clear message when the folder is absent.
std::filesystem::path fixtures_dir();
std::filesystem::path require_fixtures();

// The project's source tree (for committed test data under tests/data or tools/oracle).
std::filesystem::path source_dir();

// A fresh, empty temporary directory, removed by the caller (or left in /tmp on failure).
std::filesystem::path make_temp_dir(const char* prefix);

// The whole file as bytes; a file that cannot be opened throws std::runtime_error naming it (so a
// test comparing two missing files cannot pass).
std::string read_text(const std::filesystem::path& p);

// The built laya-engine binary (for CLI and server tests).
std::filesystem::path engine_binary();

}  // namespace laya::test
