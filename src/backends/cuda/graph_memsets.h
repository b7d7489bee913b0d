// cuBLASLt's workspace memsets in a captured forward replaced by a kernel of the engine's own.
//
// The persistent nvjet kernels cuBLASLt picks for the large buckets come with a 4-byte memset of
// its workspace (a tile counter), issued right before the kernel. Captured, the chain
// own kernel K -> memset node -> GEMM kernel costs ≈ 4–5 µs of idle GPU around the memset (≈ 1.4 µs
// before it, 0.74 in it, ≈ 2–3 after it) against ≈ 0.1–0.3 µs for K -> GEMM kernel — 87 such memsets
// a forward at 16x512 (docs/benchmarks/cuda.md item 161). Moved to start beside K, the memset still
// cost ≈ 3 µs before the GEMM (a memset node is another engine's work: the GEMM's dependency on it is
// a hand-over; item 162). So after capture each such memset becomes a one-block kernel launched
// with a programmatic edge from K: it starts while K runs, waits for K's completion
// (griddepcontrol.wait), writes the same bytes, and the GEMM follows it with a plain edge. The same
// writes in the same order relative to every other node, so the results are bitwise those of the
// captured graph and of eager mode.
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

// Replaces each memset that `log` says a call added as its first node — into [workspace,
// workspace + bytes), of at most 4,096 elements, after exactly one kernel node that no call added —
// by the stand-in kernel (see above). Returns how many were replaced.
int replace_gemm_memsets(cudaGraph_t graph, const GemmCaptureLog& log, const void* workspace, size_t bytes);

}  // namespace laya::cuda
