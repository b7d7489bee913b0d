// How deeply a JSON text nests, read off its raw bytes before any parser builds a tree of it.
#pragma once

#include <cstddef>
#include <string_view>

namespace laya {

// The nesting a checkpoint's JSON files (config.json, rl_agent_config.json, a safetensors header)
// may have: real ones nest 3 deep. Deeper texts are rejected unparsed — nlohmann's dump(), used in
// the parsers' error messages, recurses once per level, and 1M levels overflowed the stack
// (found while writing the fuzz harnesses: docs/fuzzing.md).
inline constexpr std::size_t kMaxCheckpointJsonDepth = 64;

// The deepest '[' / '{' nesting outside strings; the scan stops once it passes `limit`.
std::size_t json_nesting_depth(std::string_view text, std::size_t limit);

}  // namespace laya
