#include "cli/graph_options.h"

namespace laya::cli {

void add_graph_cache_options(CLI::App& app, engine::BackendOptions& o, bool with_env) {
  auto add = [&](const char* name, int64_t& field, const char* env, const char* help, const CLI::Validator& check) {
    auto* opt = app.add_option(name, field, help)->check(check)->capture_default_str();
    if (with_env) opt->envname(env);
  };
  add("--graph-cache-shapes", o.graph_cache_shapes, "LAYA_GRAPH_CACHE_SHAPES",
      "cuda: CUDA Graphs kept, one per batch shape bucket, least recently used dropped first (0: no graphs)",
      CLI::NonNegativeNumber);
  add("--graph-cache-bytes", o.graph_cache_bytes, "LAYA_GRAPH_CACHE_BYTES",
      "cuda: the graph cache's budget in bytes (0: no graphs)", CLI::NonNegativeNumber);
  add("--graph-admit-after", o.graph_admit_after, "LAYA_GRAPH_ADMIT_AFTER",
      "cuda: capture a shape's graph at its Nth cache miss; the misses before run eagerly",
      CLI::Range(int64_t{1}, int64_t{1000}));
  add("--graph-max-tokens", o.graph_max_tokens, "LAYA_GRAPH_MAX_TOKENS",
      "cuda: batches of more tokens (bucketed) run without a graph (0: no bound)", CLI::NonNegativeNumber);
}

}  // namespace laya::cli
