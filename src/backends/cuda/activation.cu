#include "backends/cuda/activation.cuh"

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"

namespace laya::cuda {

namespace {

// 8 columns per thread (16-byte loads and stores); inter is a multiple of 8. One grid row per
// token (blockIdx.y), so no thread divides to find its row.
__global__ void geglu_kernel(GegluParams p) {
  dev::pdl_prologue();
  const int c = (static_cast<int>(blockIdx.x) * blockDim.x + static_cast<int>(threadIdx.x)) * 8;
  if (c >= p.inter) return;
  const int64_t r = blockIdx.y;
  const __nv_bfloat16* row = p.up + r * 2 * p.inter;
  uint4 av = *reinterpret_cast<const uint4*>(row + c);
  const uint4 gv = *reinterpret_cast<const uint4*>(row + p.inter + c);
  __nv_bfloat16* a = reinterpret_cast<__nv_bfloat16*>(&av);
  const __nv_bfloat16* g = reinterpret_cast<const __nv_bfloat16*>(&gv);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float ga = dev::bf16_round(dev::gelu_erf(__bfloat162float(a[e])));
    a[e] = __float2bfloat16_rn(__fmul_rn(ga, __bfloat162float(g[e])));
  }
  *reinterpret_cast<uint4*>(p.out + r * p.inter + c) = av;
}

__global__ void gelu_kernel(GeluParams p) {
  dev::pdl_prologue();
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.n) return;
  p.data[idx] = __float2bfloat16_rn(dev::gelu_erf(__bfloat162float(p.data[idx])));
}

}  // namespace

void launch_geglu(const GegluParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.up && p.out && p.rows >= 0 && p.inter > 0 && p.inter % 8 == 0, ErrorKind::internal,
               "geglu: bad parameters (inter {} must be a multiple of 8)", p.inter);
  LAYA_REQUIRE(p.rows <= 65535, ErrorKind::internal, "geglu: {} rows exceed the grid's y limit", p.rows);
  if (p.rows == 0) return;
  constexpr int kThreads = 128;
  const int chunks = p.inter / 8;
  const dim3 grid(static_cast<unsigned>((chunks + kThreads - 1) / kThreads), static_cast<unsigned>(p.rows));
  launch_kernel(geglu_kernel, grid, dim3(kThreads), stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

void launch_gelu(const GeluParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.data && p.n >= 0, ErrorKind::internal, "gelu: bad parameters");
  if (p.n == 0) return;
  launch_kernel(gelu_kernel, static_cast<unsigned>((p.n + 255) / 256), 256, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

}  // namespace laya::cuda
