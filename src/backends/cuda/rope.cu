#include "backends/cuda/rope.cuh"

#include "backends/cuda/check.h"

namespace laya::cuda {

namespace {

__global__ void rope_kernel(RopeParams p) {
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t per_token = static_cast<int64_t>(2) * p.heads * 32;
  if (idx >= per_token * p.tokens) return;
  const int t = static_cast<int>(idx / per_token);
  const int rem = static_cast<int>(idx % per_token);
  const int i = rem & 31;
  const int head = (rem >> 5) % p.heads;
  const int which = (rem >> 5) / p.heads;  // 0 = q, 1 = k
  int pos = p.pos[t];
  pos = pos < 0 ? 0 : (pos >= p.table_len ? p.table_len - 1 : pos);
  const float c = p.cos[pos * 32 + i];
  const float s = p.sin[pos * 32 + i];
  __nv_bfloat16* base = p.qkv + static_cast<size_t>(t) * 3 * p.heads * 64 + static_cast<size_t>(which) * p.heads * 64 + head * 64;
  const float x1 = __bfloat162float(base[i]);
  const float x2 = __bfloat162float(base[i + 32]);
  base[i] = __float2bfloat16_rn(__fadd_rn(__fmul_rn(x1, c), __fmul_rn(-x2, s)));
  base[i + 32] = __float2bfloat16_rn(__fadd_rn(__fmul_rn(x2, c), __fmul_rn(x1, s)));
}

}  // namespace

void launch_rope(const RopeParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.qkv && p.pos && p.cos && p.sin && p.tokens >= 0 && p.heads > 0 && p.table_len > 0,
               ErrorKind::internal, "rope: bad parameters");
  if (p.tokens == 0) return;
  const int64_t n = static_cast<int64_t>(p.tokens) * 2 * p.heads * 32;
  rope_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(p);
  LAYA_CUDA_CHECK_LAUNCH();
}

}  // namespace laya::cuda
