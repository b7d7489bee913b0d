// Weight prefetch into L2, carried by the engine's own kernels. At small batches a GEMM is a short
// kernel that waits on DRAM for its weight tiles, and cuBLASLt's kernels cannot start before the
// kernel ahead of them ends (no programmatic launch). The weights do not depend on the
// activations, so the kernel that runs before a GEMM (attention, add+LayerNorm, GeGLU) can ask the
// memory system to bring the next GEMMs' weights into L2 first (one 64 KiB
// cp.async.bulk.prefetch.L2 per request, spread over the kernel's blocks; sm_90 and later, a no-op
// before). A hint only: nothing it does changes a result. A separate prefetch stream forked into
// the graph was tried first and was slower (docs/benchmarks/cuda.md, session 5).
#pragma once

#include <cstdint>

#include "backends/cuda/check.h"

namespace laya::cuda {

struct L2Range {
  const void* p = nullptr;
  int64_t bytes = 0;  // a multiple of 16; 0: nothing
};

// Up to two ranges a kernel prefetches (empty by default).
struct L2Prefetch {
  L2Range ranges[2];
};

// [p, p + bytes) as a prefetch range: p must be 16-byte aligned (device weights are 256-byte
// aligned); a tail of fewer than 16 bytes is left out.
inline L2Range l2_range(const void* p, int64_t bytes) {
  LAYA_REQUIRE(p != nullptr && reinterpret_cast<uintptr_t>(p) % 16 == 0 && bytes >= 0, ErrorKind::internal,
               "l2 prefetch: needs a 16-byte aligned range");
  return {p, bytes - bytes % 16};
}

}  // namespace laya::cuda

#ifdef __CUDACC__
namespace laya::cuda::dev {

// Called by every block of a kernel before anything else: block `part` of `parts` requests its
// share of the ranges, 64 KiB at a time (the bulk prefetch's size field counts 16-byte units in
// 16 bits, so requests stay well under its limit). Only thread 0 issues; the kernel goes on at once.
__device__ __forceinline__ void l2_prefetch_share(const L2Prefetch& pf, int part, int parts) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int64_t kChunk = int64_t{64} << 10;
  if (threadIdx.x != 0 || threadIdx.y != 0) return;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const char* p = static_cast<const char*>(pf.ranges[r].p);
    const int64_t bytes = pf.ranges[r].bytes;
    for (int64_t off = static_cast<int64_t>(part) * kChunk; off < bytes; off += static_cast<int64_t>(parts) * kChunk) {
      const auto n = static_cast<uint32_t>(min(kChunk, bytes - off));
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p + off), "r"(n) : "memory");
    }
  }
#endif
}

}  // namespace laya::cuda::dev
#endif
