// Backend: runs Laya's forward pass (encoder, decision layers, scorer, action head) on a Batch.
// Implementations: backends/cpu (fp32 reference, the oracle) and backends/cuda.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>

#include "engine/batch.h"
#include "engine/dump.h"

namespace laya::engine {

// How to build a backend (read by the backend factory; each backend uses the fields that concern it).
struct BackendOptions {
  std::string backend = "cpu";       // "cpu" | "cuda"
  int32_t device = 0;                // cuda: GPU index
  int32_t threads = 0;               // cpu: BLAS/worker threads, 0 = all cores
  std::string execution = "graph";   // cuda: "eager" | "graph" (CUDA Graphs per shape bucket)
  int64_t graph_cache_shapes = 64;   // cuda: graph cache budget in shapes (0 disables the cache)
  int64_t graph_cache_bytes = int64_t{1} << 30;  // cuda: graph cache budget in bytes
  // cuda: a shape's graph is captured at its Nth cache miss (eager before), and only for buckets of
  // at most graph_max_tokens tokens (0: any). A capture costs 1.5-14 ms; a replay saves 0.3 ms a
  // forward up to ~6k tokens and nothing at 8k: under mixed traffic these defaults serve +35 %
  // requests/s over capturing every shape at its first miss (docs/benchmarks/cuda.md items 98-100).
  int64_t graph_admit_after = 2;
  int64_t graph_max_tokens = 4096;
  int32_t max_rows = 64;             // cuda: rows one forward takes (its workspace is sized for them)
  // cuda: tokens one forward takes (its workspace is sized for them): 0 = 16 rows of the
  // checkpoint's max_len; a positive value only lowers that, to one full row (and 1,024 tokens) at least
  int64_t max_tokens = 0;
  // cuda: shapes to run (and capture) at start-up, e.g. "1x48,4x64"; "auto": one eager forward per
  // bucket size, so that no first request of a size pays for loading its kernels (serve's default);
  // "" or "none": no warm-up
  std::string warmup_shapes;
  // cuda: "auto" (the checkpoint's amp_dtype, as laya's Agent: "bf16" -> bf16, else fp16) | "bf16" | "fp16"
  std::string precision = "auto";
};

struct BackendInfo {
  std::string backend;     // "cpu" | "cuda"
  std::string device;      // e.g. "NVIDIA H200 (sm_90)" or "CPU, 2 threads"
  std::string precision;   // "fp32" | "bf16" | "fp16"
  int64_t weight_bytes = 0;
  int64_t device_memory_used = 0;  // bytes, 0 if not applicable
};

// The largest batch a backend takes in one forward (the CUDA engine: its workspace, sized at
// start-up); unlimited by default. A larger batch runs in parts (engine/parts.h): rows are
// independent, so the answers do not depend on how the rows are grouped into forwards.
struct BatchCapacity {
  int32_t max_rows = std::numeric_limits<int32_t>::max();
  int32_t max_tokens = std::numeric_limits<int32_t>::max();
  int32_t max_markers = std::numeric_limits<int32_t>::max();
  bool fits(int64_t rows, int64_t tokens, int64_t markers) const {
    return rows <= max_rows && tokens <= max_tokens && markers <= max_markers;
  }
};

// How a backend's forwards ran, counted over its life. Only backends that run CUDA Graphs fill it
// (graphs = true); the server exports it on /metrics (docs/server.md).
struct BackendCounters {
  bool graphs = false;            // the backend runs forwards as cached CUDA Graphs
  int64_t graph_replays = 0;      // forwards that replayed a cached graph
  int64_t graph_captures = 0;     // graphs captured (each one a cache miss that was admitted)
  int64_t capture_failures = 0;   // captures that failed (that forward ran eagerly)
  int64_t graph_evictions = 0;    // cached graphs dropped to stay within the cache's budgets
  int64_t eager_forwards = 0;     // forwards run without a graph (cache misses not admitted, warm-up)
  double capture_seconds = 0;     // host time spent capturing and instantiating graphs
  int64_t cached_graphs = 0;      // graphs held now (a level, not a count of events)
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Runs the whole forward for every row of `batch` (batch.validate() must pass). Thread
  // compatible, not thread safe: one caller at a time. `dumps` (optional) receives named
  // intermediates for parity work; a null sink costs nothing.
  virtual ForwardResult forward(const Batch& batch, DumpSink* dumps = nullptr) = 0;
  virtual BackendInfo info() const = 0;
  // What one forward takes; forward() refuses a batch beyond it (laya::Error too_large).
  virtual BatchCapacity capacity() const { return {}; }
  // Device time of the last forward in milliseconds (CUDA events) while device timing is on, else a
  // negative value (also where the backend has no separate device clock: CPU).
  virtual double last_device_ms() const { return -1.0; }
  // Whether forward() records its device time (off by default: on the CUDA engine the two event
  // records cost ≈ 3 µs of host time a forward; docs/benchmarks/cuda.md item 121). bench turns it
  // on for the iterations that measure device time.
  virtual void set_device_timing(bool on) { (void)on; }
  // How the forwards so far ran (see BackendCounters). One caller at a time, like forward().
  virtual BackendCounters counters() const { return {}; }
};

}  // namespace laya::engine
