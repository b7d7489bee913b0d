#include "backends/cuda/attention.cuh"

#include "backends/cuda/tile.h"
#include "backends/cuda/check.h"

namespace laya::cuda {

namespace {

constexpr int kBQ = kAttnTile;  // queries per block, one per thread
constexpr int kBK = 32;         // keys per shared-memory tile
constexpr int kD = 64;

__global__ void __launch_bounds__(kBQ) attention_kernel(AttentionParams p) {
  __shared__ __align__(16) __nv_bfloat16 ks[kBK][kD];
  __shared__ __align__(16) __nv_bfloat16 vs[kBK][kD];
  const int tile = blockIdx.x;
  const int head = blockIdx.y;
  const int row = p.tiles[2 * tile];
  if (row < 0) return;  // unused tile: uniform across the block
  const int q0 = p.tiles[2 * tile + 1];
  const int rs = p.row_offsets[row], re = p.row_offsets[row + 1];
  const int qi = q0 + static_cast<int>(threadIdx.x);
  const bool active = qi < re;
  const size_t ld = static_cast<size_t>(3) * p.heads * kD;
  const size_t koff = static_cast<size_t>(p.heads) * kD + head * kD;
  const size_t voff = static_cast<size_t>(2) * p.heads * kD + head * kD;

  float q[kD];
  float acc[kD];
#pragma unroll
  for (int e = 0; e < kD; ++e) acc[e] = 0.f;
  if (active) {
    const __nv_bfloat162* src = reinterpret_cast<const __nv_bfloat162*>(p.qkv + qi * ld + head * kD);
#pragma unroll
    for (int e = 0; e < kD / 2; ++e) {
      const float2 f = __bfloat1622float2(src[e]);
      q[2 * e] = f.x;
      q[2 * e + 1] = f.y;
    }
  } else {
#pragma unroll
    for (int e = 0; e < kD; ++e) q[e] = 0.f;
  }

  int lo = rs, hi = re;
  if (p.window >= 0) {
    lo = max(rs, q0 - p.window);
    hi = min(re, min(q0 + kBQ, re) - 1 + p.window + 1);
  }
  float m = -INFINITY, l = 0.f;
  for (int kb = lo; kb < hi; kb += kBK) {
    __syncthreads();
    // 32 keys x 64 dims x 2 bytes = 256 uint4 for K and for V; 64 threads load 4 + 4.
    for (int i = threadIdx.x; i < kBK * (kD / 8); i += kBQ) {
      const int j = i / (kD / 8), c = i % (kD / 8);
      const int kj = kb + j;
      uint4 kv = make_uint4(0, 0, 0, 0), vv = make_uint4(0, 0, 0, 0);
      if (kj < hi) {
        kv = *reinterpret_cast<const uint4*>(p.qkv + kj * ld + koff + c * 8);
        vv = *reinterpret_cast<const uint4*>(p.qkv + kj * ld + voff + c * 8);
      }
      *reinterpret_cast<uint4*>(&ks[j][c * 8]) = kv;
      *reinterpret_cast<uint4*>(&vs[j][c * 8]) = vv;
    }
    __syncthreads();
    if (!active) continue;
    float s[kBK];
    float mt = m;
#pragma unroll
    for (int j = 0; j < kBK; ++j) {
      const int kj = kb + j;
      const bool valid = kj < hi && (p.window < 0 || abs(qi - kj) <= p.window);
      float dot = 0.f;
      const __nv_bfloat162* kr = reinterpret_cast<const __nv_bfloat162*>(&ks[j][0]);
#pragma unroll
      for (int e = 0; e < kD / 2; ++e) {
        const float2 f = __bfloat1622float2(kr[e]);
        dot = fmaf(q[2 * e], f.x, dot);
        dot = fmaf(q[2 * e + 1], f.y, dot);
      }
      s[j] = valid ? dot * p.scale : -INFINITY;
      mt = fmaxf(mt, s[j]);
    }
    if (mt == -INFINITY) continue;
    const float corr = expf(m - mt);  // m == -inf: 0
    l *= corr;
#pragma unroll
    for (int e = 0; e < kD; ++e) acc[e] *= corr;
#pragma unroll
    for (int j = 0; j < kBK; ++j) {
      const float pj = s[j] == -INFINITY ? 0.f : expf(s[j] - mt);
      l += pj;
      const __nv_bfloat162* vr = reinterpret_cast<const __nv_bfloat162*>(&vs[j][0]);
#pragma unroll
      for (int e = 0; e < kD / 2; ++e) {
        const float2 f = __bfloat1622float2(vr[e]);
        acc[2 * e] = fmaf(pj, f.x, acc[2 * e]);
        acc[2 * e + 1] = fmaf(pj, f.y, acc[2 * e + 1]);
      }
    }
    m = mt;
  }
  if (!active) return;
  const float inv = l > 0.f ? 1.f / l : 0.f;
  __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(p.out + static_cast<size_t>(qi) * p.heads * kD + head * kD);
#pragma unroll
  for (int e = 0; e < kD / 2; ++e) dst[e] = __floats2bfloat162_rn(acc[2 * e] * inv, acc[2 * e + 1] * inv);
}

}  // namespace

void launch_attention(const AttentionParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.qkv && p.out && p.row_offsets && p.tiles && p.tile_capacity >= 0 && p.heads > 0 && p.window >= -1,
               ErrorKind::internal, "attention: bad parameters");
  if (p.tile_capacity == 0) return;
  attention_kernel<<<dim3(static_cast<unsigned>(p.tile_capacity), static_cast<unsigned>(p.heads)), kBQ, 0, stream>>>(p);
  LAYA_CUDA_CHECK_LAUNCH();
}

}  // namespace laya::cuda
