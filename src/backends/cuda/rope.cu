#include "backends/cuda/rope.cuh"

#include <cstdint>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"

namespace laya::cuda {

namespace {

// One thread per (token, part, head, 8-dim chunk): threadIdx.x walks (part, head, chunk) of one
// token, threadIdx.y the tokens of the block (no divisions). 16-byte loads of dims [8c, 8c+8) and
// [32+8c, 32+8c+8), float4 table reads; per element the same fp32 arithmetic as before
// (x1*c - x2*s, x2*c + x1*s, unfused, one rounding to T), so results are bitwise unchanged.
template <class T>
__global__ void rope_kernel(RopeParams<T> p) {
  using H = dev::Half16<T>;
  const int t = static_cast<int>(blockIdx.x) * blockDim.y + static_cast<int>(threadIdx.y);
  const int rem = static_cast<int>(threadIdx.x);
  const int c = rem & 3;
  // The positions (the staging block, written before the forward's first kernel, which has completed
  // by the time this one starts: pdl_prologue, common.cuh) and the table rows they select
  // (constants) are read before the wait: after it only q / k's own round trip remains, not the
  // position's and then the table's (docs/benchmarks/cuda.md item 180).
  float cs[8], sn[8];
  if (t < p.tokens) {
    int pos = p.pos[t];
    pos = pos < 0 ? 0 : (pos >= p.table_len ? p.table_len - 1 : pos);
    const float4* cp = reinterpret_cast<const float4*>(p.cos + pos * 32 + c * 8);
    const float4* sp = reinterpret_cast<const float4*>(p.sin + pos * 32 + c * 8);
    *reinterpret_cast<float4*>(&cs[0]) = cp[0];
    *reinterpret_cast<float4*>(&cs[4]) = cp[1];
    *reinterpret_cast<float4*>(&sn[0]) = sp[0];
    *reinterpret_cast<float4*>(&sn[4]) = sp[1];
  }
  dev::pdl_prologue();
  if (t >= p.tokens) return;
  const int slot = rem >> 2;  // part * heads + head
  const int which = p.k_only ? 1 : (slot >= p.heads ? 1 : 0);  // 0 = q, 1 = k
  const int head = slot >= p.heads ? slot - p.heads : slot;
  T* base = p.qkv + static_cast<size_t>(t) * 3 * p.heads * 64 + static_cast<size_t>(which) * p.heads * 64 + head * 64;
  uint4 lo = *reinterpret_cast<const uint4*>(base + c * 8);
  uint4 hi = *reinterpret_cast<const uint4*>(base + 32 + c * 8);
  T* l = reinterpret_cast<T*>(&lo);
  T* h = reinterpret_cast<T*>(&hi);
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float x1 = H::to_float(l[e]), x2 = H::to_float(h[e]);
    l[e] = H::from_float(__fadd_rn(__fmul_rn(x1, cs[e]), __fmul_rn(-x2, sn[e])));
    h[e] = H::from_float(__fadd_rn(__fmul_rn(x2, cs[e]), __fmul_rn(x1, sn[e])));
  }
  *reinterpret_cast<uint4*>(base + c * 8) = lo;
  *reinterpret_cast<uint4*>(base + 32 + c * 8) = hi;
}

}  // namespace

template <class T>
void launch_rope(const RopeParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.qkv && p.pos && p.cos && p.sin && p.tokens >= 0 && p.heads > 0 && p.table_len > 0,
               ErrorKind::internal, "rope: bad parameters");
  LAYA_REQUIRE(reinterpret_cast<uintptr_t>(p.qkv) % 16 == 0 && reinterpret_cast<uintptr_t>(p.cos) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(p.sin) % 16 == 0,
               ErrorKind::internal, "rope: buffers must be 16-byte aligned");
  if (p.tokens == 0) return;
  const int per_token = (p.k_only ? 1 : 2) * p.heads * 4;
  LAYA_REQUIRE(per_token <= 256, ErrorKind::internal, "rope: {} heads unsupported (at most 32)", p.heads);
  const int tokens_per_block = 256 / per_token;
  launch_kernel(rope_kernel<T>, dim3(static_cast<unsigned>((p.tokens + tokens_per_block - 1) / tokens_per_block)),
                dim3(static_cast<unsigned>(per_token), static_cast<unsigned>(tokens_per_block)), stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

#define LAYA_INSTANTIATE_ROPE(T) template void launch_rope<T>(const RopeParams<T>&, cudaStream_t);
LAYA_FOR_HALF16(LAYA_INSTANTIATE_ROPE)

}  // namespace laya::cuda
