// The CUDA graph cache's command-line options, shared by `serve` and `bench`.
#pragma once

#include <CLI/CLI.hpp>

#include "engine/backend.h"

namespace laya::cli {

// --graph-cache-shapes, --graph-cache-bytes, --graph-admit-after (1..1,000), --graph-max-tokens,
// validated, into `o` (whose values are the defaults shown); with_env: also read from
// LAYA_GRAPH_CACHE_SHAPES, LAYA_GRAPH_CACHE_BYTES, LAYA_GRAPH_ADMIT_AFTER, LAYA_GRAPH_MAX_TOKENS.
void add_graph_cache_options(CLI::App& app, engine::BackendOptions& o, bool with_env);

}  // namespace laya::cli
