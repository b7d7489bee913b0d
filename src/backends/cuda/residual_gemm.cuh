// An output GEMM that adds into the fp32 residual stream (sm_90a: TMA + wgmma), for large token
// counts: x[m, n] += in[m, k] . W[n, k]^T, the product added unrounded in fp32 — what
// Gemm::run_residual asks of cuBLASLt (beta = 1, C = D = x), in a kernel that takes programmatic
// edges: its first stages' weights are requested before the wait, and the add+LN after it starts
// while it runs (cuBLASLt's kernels take neither, docs/benchmarks/cuda.md item 54).
//
// One persistent CTA per SM (its tiles: b, b + grid, ...; output column tiles fastest): a producer
// thread streams 128 x 64 tiles of `in` and of W into a 6-stage ring of 128-byte-swizzled shared
// memory; two consumer warpgroups (64 rows each) run wgmma.m64n128k16 over the whole K in order,
// 16 at a time, then add their 64 x 128 accumulators into x (rows past m are neither read nor
// written). Deterministic.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

template <class T>
struct ResidualGemmArgs {
  const T* in = nullptr;  // [m, k] row-major, 16-byte aligned
  const T* w = nullptr;   // [n, k] row-major (the checkpoint's Wo / MLP Wo)
  float* x = nullptr;     // [m, n] row-major, read and written
  int32_t m = 0, n = 0, k = 0;
  int32_t max_ctas = 0;  // grid cap (0: one CTA per SM); tests cap it so that each CTA runs several tiles
};

// Whether the kernel can run these dimensions on the current device (sm_90 built as sm_90a, n a
// multiple of 128, k a multiple of 64).
bool residual_gemm_supported(int32_t n, int32_t k);

template <class T>
void launch_residual_gemm(const ResidualGemmArgs<T>& a, cudaStream_t stream);

}  // namespace laya::cuda
