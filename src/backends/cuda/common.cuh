// Shared device helpers of the CUDA kernels.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "backends/cuda/build_info.h"
#include "backends/cuda/check.h"
#include "backends/cuda/pdl.h"

namespace laya::cuda {

template <typename... Params, typename... Args>
void launch_kernel_smem(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                        bool allow_pdl, Args&&... args) {
  // Only on the engine's own stream, and only where the kernels wait (dev::pdl_prologue compiles to
  // nothing in an image for an architecture before sm_90, e.g. PTX for sm_80 run on a Hopper).
  const bool pdl = allow_pdl && stream != nullptr && pdl_for_next_launch() && kernel_image_waits_for_pdl();
  pdl_last_launch_own() = allow_pdl && stream != nullptr;  // allow_pdl: the kernel starts with pdl_prologue
  if (!pdl) {
    kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
    return;
  }
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[2];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  if (pdl_scope_carveout() >= 0) {  // for this launch (and the graph node captured from it) only
    attr[1].id = cudaLaunchAttributePreferredSharedMemoryCarveout;
    attr[1].val.sharedMemCarveout = static_cast<unsigned>(pdl_scope_carveout());
    cfg.numAttrs = 2;
  }
  LAYA_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...));
}

template <typename... Params, typename... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, bool allow_pdl,
                   Args&&... args) {
  launch_kernel_smem(kernel, grid, block, 0, stream, allow_pdl, std::forward<Args>(args)...);
}

}  // namespace laya::cuda

namespace laya::cuda::dev {

// See launch_kernel. Without PDL (or before sm_90) the wait returns at once.
// The order matters: every kernel of the chain triggers its dependents only after its own wait has
// returned (the small GEMM's producer too, after its last load), so when a kernel starts, the kernel
// before its predecessor — and every earlier one, the forward's staging copy included — has
// completed. Kernels rely on that to read constants and the staging block before calling this
// (docs/benchmarks/cuda.md item 104); a kernel that triggered before its wait would break it for the
// kernel after next.
__device__ __forceinline__ void pdl_prologue() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// The GPU's global timer in ns (%globaltimer): the instrumented kernels' and probes' clock.
__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Fetches the 128-byte line holding p into L2 (fire and forget: no register, no wait).
__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Exact (erf) GELU as PyTorch computes it for GeluType::None: x * 0.5 * (1 + erf(x / sqrt(2))).
__device__ __forceinline__ float gelu_erf(float x) {
  return __fmul_rn(__fmul_rn(x, 0.5f), __fadd_rn(1.0f, erff(__fmul_rn(x, 0.70710678118654752440f))));
}

// 2^x by the special-function unit alone: subnormal results flush to 0 (exp2f adds a range check
// and two multiplies to return them).
__device__ __forceinline__ float ex2_approx_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float bf16_round(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

}  // namespace laya::cuda::dev
