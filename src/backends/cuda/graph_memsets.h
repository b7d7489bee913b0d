// cuBLASLt's workspace memsets moved off a captured forward's critical path.
//
// The persistent nvjet kernels cuBLASLt picks for the large buckets come with a 4-byte memset of
// its workspace (a tile counter), issued right before the kernel. Captured, the chain
// own kernel K -> memset -> GEMM kernel hands over twice around a memset node: measured on the H200,
// ≈ 1.4 µs before the memset, 0.74 µs in it and ≈ 2.1 µs after it, against ≈ 0.1–0.3 µs for K -> GEMM
// (docs/benchmarks/cuda.md item 161: 87 such memsets a forward at 16x512, 31 at 8x512). The memset
// only has to run after the previous user of the workspace (an earlier cuBLASLt call) and before its
// own kernel, so after capture it is made to start beside K: its dependencies become K's (plain
// edges) and K gets a plain edge to the GEMM's next node. Every node still runs, on the same
// inputs, in an order the data allows, so the results are bitwise those of the unmoved graph and of
// eager mode.
#pragma once

#include <cstddef>
#include <vector>

#include <cuda_runtime_api.h>

namespace laya::cuda {

// What cuBLASLt added to a stream capture: for each call, the capture's last nodes before it, and
// every node the call added.
struct GemmCaptureLog {
  std::vector<cudaGraphNode_t> before;
  std::vector<cudaGraphNode_t> added;
  void clear() {
    before.clear();
    added.clear();
  }
};

// Records one library call's nodes into `log` when `stream` is being captured (else does nothing):
// construct it just before the call, call finish() right after.
class CaptureCallLog {
 public:
  CaptureCallLog(GemmCaptureLog* log, cudaStream_t stream);
  void finish();

 private:
  GemmCaptureLog* log_ = nullptr;
  cudaStream_t stream_ = nullptr;
  std::vector<cudaGraphNode_t> before_;
};

// Moves each memset that `log` says a call added as its first node — into [workspace,
// workspace + bytes), after exactly one kernel node that no call added — to start beside that
// kernel (see above). Returns how many were moved.
int move_gemm_memsets(cudaGraph_t graph, const GemmCaptureLog& log, const void* workspace, size_t bytes);

}  // namespace laya::cuda
