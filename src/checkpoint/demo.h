// The built-in demo checkpoint (`--model demo`): a tiny synthetic checkpoint generated on first use
// into $LAYA_CACHE_DIR, else $XDG_CACHE_HOME/laya-engine, else ~/.cache/laya-engine, as demo-v1/.
// It is written to a temporary sibling directory and renamed into place, so concurrent first uses
// are safe. Its weights are random: its answers mean nothing.
#pragma once

#include <filesystem>
#include <string_view>

namespace laya::checkpoint {

inline constexpr std::string_view kDemoModel = "demo";

// "demo" -> the demo checkpoint directory (generated if needed; *is_demo = true); anything else is a
// path that must exist (throws not_found naming it).
std::filesystem::path resolve_model_dir(std::string_view model_arg, bool* is_demo = nullptr);

// The cache directory used for the demo (without creating it).
std::filesystem::path demo_cache_dir();

}  // namespace laya::checkpoint
