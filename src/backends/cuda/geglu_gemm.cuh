// The MLP input GEMM with GeGLU in its epilogue (sm_90a: TMA + wgmma), for large token counts:
// out[M, inter] = GeGLU(in[M, K] . W[2 inter, K]^T), where the GEMM's two halves (act = rows
// 0..inter-1 of W, mul = rows inter..2 inter-1) are each rounded to T as cuBLASLt's output would
// be, then out = T(T(gelu(act)) * mul) exactly as geglu_kernel computes it. One kernel instead of
// the cuBLASLt GEMM and the GeGLU pass, and the [M, 2 inter] intermediate is never written.
//
// One persistent CTA per SM (its tiles: b, b + grid, ...): a producer thread streams 256 x 64 A
// tiles and 128 x 64 W tiles into a 4-stage ring of 128-byte-swizzled shared memory with TMA; four
// consumer warpgroups (64 rows each) run wgmma.m64n128k16 with fp32 accumulators. A tile is 256
// rows x 64 output columns: its W tile holds the 64 act rows and the 64 matching mul rows, so each
// thread holds an act column and its mul partner (accumulator columns c and c + 64) — the GeGLU
// pairs are thread-local. A tile's epilogue runs during the CTA's next tile's MMAs (from packed,
// already rounded (act, mul) pairs). Deterministic; the summation runs over K in order, 16 at a time.
// Measured on the H200 (docs/benchmarks/cuda.md items 26 and 43): 125 us a call at 16x512 (about
// nvjet's rate for the GEMM alone), faster than cuBLASLt + GeGLU from 1,280 tokens, slower at 1,152
// and 1,024 (a second wave of 256-row tiles mostly idle), so the engine uses it from 1,280 tokens.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

template <class T>
struct GegluGemmArgs {
  const T* in = nullptr;  // [m, k] row-major, 16-byte aligned
  const T* w = nullptr;   // [2 inter, k] row-major (the checkpoint's Wi)
  T* out = nullptr;       // [m, inter] row-major
  int32_t m = 0, k = 0, inter = 0;
  int32_t max_ctas = 0;  // grid cap (0: one CTA per SM); tests cap it so that each CTA runs several tiles
  // Consumer warpgroups whose 64 rows of a tile all lie past m issue no MMAs (the same outputs: those
  // rows are never stored) where that shortens the kernel's last round (its tiles all in the last
  // row tile). false: every warpgroup multiplies its zero-filled rows (LAYA_CUDA_GEGLU_SKIP_PAST_M=0).
  bool skip_rows_past_m = true;
  // bf16: the GELU table of every pattern (kGeluAllEntries, launch_fill_gelu_all; activation.cuh):
  // each CTA copies its shared table (|act| in [2^-16, 16)) from it and reads the activations
  // outside that range from it. Unused for fp16.
  const uint16_t* gelu_all = nullptr;
};

// Whether the fused kernel can run these dimensions on the current device (sm_90 built as sm_90a,
// k a multiple of 64, inter a multiple of 64).
bool geglu_gemm_supported(int32_t k, int32_t inter);

template <class T>
void launch_geglu_gemm(const GegluGemmArgs<T>& a, cudaStream_t stream);

}  // namespace laya::cuda
