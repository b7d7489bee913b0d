// The skinny GEMM: bf16 out = epilogue(in[M,K] . W[N,K]^T) for small M (a few dozen tokens), where
// cuBLASLt's kernels are latency-bound and split K through a separate reduction kernel.
//
// Every 64x64 output tile is computed by a thread-block cluster of `splits` CTAs (sm_90), each
// streaming its share of K through a 4-stage cp.async pipeline into mma.sync m16n8k16 (fp32
// accumulation); the partial tiles are summed through distributed shared memory in split order
// (deterministic: the same inputs give the same bits in every mode), and each CTA then applies the
// epilogue to its share of the rows:
//   plain: out = bf16(acc + bias) (ReLU optional) — the autocast addmm rounding, like gemm.h;
//   GeGLU: W holds [input rows; gate rows] (2*n_out rows) and out[:, j] =
//          bf16(bf16(gelu(bf16(acc_in_j))) * bf16(acc_gate_j)) — the Wi GEMM and geglu_kernel in one.
// Needs compute capability 9.0 (clusters); skinny_gemm_available() says whether it can run here.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

struct SkinnyGemmParams {
  const __nv_bfloat16* in = nullptr;    // [M, K] row-major
  const __nv_bfloat16* w = nullptr;     // [N, K] row-major; GeGLU: [2 * n, K]
  const __nv_bfloat16* bias = nullptr;  // [N] or null (not with GeGLU)
  __nv_bfloat16* out = nullptr;         // [M, N] row-major (GeGLU: N = n = the inter size)
  int32_t m = 0, n = 0, k = 0;          // n and k multiples of 8
  bool relu = false;
  bool geglu = false;
};

// True when the current device can run the kernel (sm_90 code in the binary, clusters supported).
// Also raises the kernels' dynamic shared-memory limit (once per process); call it outside capture.
bool skinny_gemm_available();

void launch_skinny_gemm(const SkinnyGemmParams& p, cudaStream_t stream);

}  // namespace laya::cuda
