// File integrity: streamed SHA-256 of the checkpoint files and the table of known official hashes
// (spec §7.3). Only the full model.safetensors hashes are known; of the other English files only
// abbreviated hashes (first 8 / last 3-4 hex digits) are published, which we match as such.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/checkpoint.h"

namespace laya::checkpoint {

// (bytes done, bytes total) after every chunk.
using HashProgress = std::function<void(uint64_t done, uint64_t total)>;

// Lower-case hex SHA-256 of a file, read in 1 MiB chunks. Throws io naming the file.
std::string sha256_file(const std::filesystem::path& path, const HashProgress& progress = {});
std::string sha256_hex(std::string_view data);

struct FileHash {
  std::string role;   // "model.safetensors", "encoder/config.json", ...
  std::filesystem::path path;
  uint64_t size = 0;
  std::string sha256;
  std::string known_as;  // e.g. "official English model.safetensors" (empty when unknown)
};

struct IntegrityReport {
  std::vector<FileHash> files;
  std::string verdict;  // "official English checkpoint, unmodified" / "... weights unmodified" / "modified or unknown"
  bool official_weights = false;
};

// The five files in a fixed order; missing files are skipped (Checkpoint validation reports them).
IntegrityReport check_integrity(const CheckpointPaths& paths,
                                const std::function<void(const std::string& role, uint64_t done, uint64_t total)>& progress = {});

// Which official file a hash is, or "" (matches full hashes and the published abbreviations).
std::string known_official_file(std::string_view role, std::string_view sha256_hex, uint64_t size);

}  // namespace laya::checkpoint
