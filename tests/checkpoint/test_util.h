// Helpers for the checkpoint tests: a valid tiny synthetic checkpoint to corrupt, raw safetensors
// editing, and message assertions.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "checkpoint/synth.h"
#include "laya/errors.h"
#include "support/paths.h"

namespace laya::checkpoint::testing {

namespace fs = std::filesystem;

inline std::string read_bytes(const fs::path& p) { return laya::test::read_text(p); }

inline void write_bytes(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// A temp dir holding a fresh tiny checkpoint; removed on destruction.
struct TinyCheckpoint {
  fs::path root;
  fs::path dir;
  explicit TinyCheckpoint(uint64_t seed = 5, int layers = -1) {
    root = laya::test::make_temp_dir("ckpt");
    dir = root / "tiny";
    SynthOptions o;
    o.layout = "tiny";
    o.seed = seed;
    o.layers = layers;
    o.out = dir;
    write_synthetic_checkpoint(o);
  }
  ~TinyCheckpoint() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  fs::path weights() const { return dir / "model.safetensors"; }
  fs::path agent() const { return dir / "rl_agent_config.json"; }
  fs::path encoder() const { return dir / "encoder" / "config.json"; }
};

// A safetensors file split into its parsed header and raw data section.
struct RawSafetensors {
  nlohmann::ordered_json header;
  std::string data;

  static RawSafetensors load(const fs::path& p) {
    std::string b = read_bytes(p);
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(b[i]);
    RawSafetensors r;
    r.header = nlohmann::ordered_json::parse(b.substr(8, n));
    r.data = b.substr(8 + n);
    return r;
  }
  static std::string with_header(const std::string& header, const std::string& data) {
    std::string out(8, '\0');
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(n >> (8 * i));
    return out + header + data;
  }
  void save(const fs::path& p) const { write_bytes(p, with_header(header.dump(), data)); }
};

inline nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(read_bytes(p)); }
inline void write_json(const fs::path& p, const nlohmann::json& j) { write_bytes(p, j.dump(2)); }

// Runs fn, expecting a laya::Error of `kind` whose message contains every part.
template <typename Fn>
std::string expect_error(Fn&& fn, ErrorKind kind, std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    for (const auto& p : parts) EXPECT_THAT(e.what(), ::testing::HasSubstr(p));
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return {};
}

}  // namespace laya::checkpoint::testing
