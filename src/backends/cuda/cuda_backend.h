// The CUDA engine: Laya's encoder, decision layers, scorer and action head on one NVIDIA GPU.
//
// make_cuda_backend validates everything before touching the GPU's memory (model dims the kernels
// support, device index, compute capability against the compiled kernels, free memory), uploads
// the weights once (weights.h), allocates ONE max-size workspace shared by every shape, and warms
// the configured shapes. A forward packs the batch into workspace-owned pinned memory (validated
// first), runs the whole forward — upload, 28+2 layers, heads, copy back — eagerly or as a CUDA
// Graph per shape bucket (bucket.h, graph_cache.h), and synchronises the stream once.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cuda/bucket.h"
#include "checkpoint/checkpoint.h"
#include "engine/backend.h"

namespace laya::cuda {

struct CudaStats {
  int64_t forwards = 0;
  int64_t eager_runs = 0;        // forwards run without a graph
  int64_t graph_replays = 0;     // forwards run by replaying a cached graph (hits)
  int64_t graph_captures = 0;    // successful captures
  int64_t capture_failures = 0;  // failed captures (cleaned up; that forward ran eagerly)
  int64_t pruned_head_records = 0;  // forwards recorded (eager or captured) with the last decision layer pruned
  int64_t gemm_memsets_replaced = 0;  // cuBLASLt memsets replaced by an own kernel in captures (graph_memsets.h)
  int64_t evictions = 0;
  double capture_ms = 0;            // host time in capture(): GEMM timing, capture, instantiation; failures too
  int64_t cached_shapes = 0;
  int64_t cached_bytes = 0;
};

// The backend plus the controls tests and benchmarks need.
class CudaEngine : public engine::Backend {
 public:
  virtual CudaStats stats() const = 0;
  virtual std::vector<Bucket> cached_buckets() const = 0;  // least recently used first
  virtual Bucket bucket_for(const engine::Batch& batch) const = 0;
  virtual int64_t graph_cost_bytes() const = 0;  // what one cached graph counts against the byte budget
  virtual const BucketLimits& limits() const = 0;
  // Fault injection for tests: the next n graph captures fail after capture began.
  virtual void fail_next_captures(int n) = 0;
  virtual void clear_graphs() = 0;
  // Device memory in use by this engine (weights + workspace + graphs), from cudaMemGetInfo deltas.
  virtual int64_t device_bytes_in_use() const = 0;
};

std::unique_ptr<CudaEngine> make_cuda_engine(const checkpoint::Checkpoint& ckpt, const engine::BackendOptions& options);
std::unique_ptr<engine::Backend> make_cuda_backend(const checkpoint::Checkpoint& ckpt,
                                                   const engine::BackendOptions& options);

}  // namespace laya::cuda
