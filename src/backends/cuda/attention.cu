#include "backends/cuda/attention.cuh"

#include "backends/cuda/tile.h"
#include <cstdint>
#include <cstdlib>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/attention_mma.cuh"

namespace laya::cuda {

namespace {

constexpr int kBK = 32;         // keys per shared-memory tile
using attn::kD;

template <class T, int kBQ>  // queries per block, one per thread
__global__ void __launch_bounds__(kBQ) attention_kernel(AttentionParams<T> p) {
  using H = dev::Half16<T>;
  using Pair = typename H::Pair;
  dev::pdl_prologue();
  __shared__ __align__(16) T ks[kBK][kD];
  __shared__ __align__(16) T vs[kBK][kD];
  const int tile = blockIdx.x;
  const int head = blockIdx.y;
  const int row = p.tiles[2 * tile];
  if (row < 0) return;  // unused tile: uniform across the block
  const int q0 = p.tiles[2 * tile + 1];
  const int rs = p.row_offsets[row], re = p.row_offsets[row + 1];
  const int qi = q0 + static_cast<int>(threadIdx.x);
  const bool active = qi < re;
  if (row == p.zero_row) {  // uniform across the block
    if (active) {
      uint4* dst = reinterpret_cast<uint4*>(p.out + static_cast<size_t>(qi) * p.heads * kD + head * kD);
#pragma unroll
      for (int c = 0; c < kD / 8; ++c) dst[c] = make_uint4(0, 0, 0, 0);
    }
    return;
  }
  const size_t ld = static_cast<size_t>(3) * p.heads * kD;
  const size_t koff = static_cast<size_t>(p.heads) * kD + head * kD;
  const size_t voff = static_cast<size_t>(2) * p.heads * kD + head * kD;

  float q[kD];
  float acc[kD];
#pragma unroll
  for (int e = 0; e < kD; ++e) acc[e] = 0.f;
  if (active) {
    const Pair* src = reinterpret_cast<const Pair*>(p.qkv + qi * ld + head * kD);
#pragma unroll
    for (int e = 0; e < kD / 2; ++e) {
      const float2 f = H::to_float2(src[e]);
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
      const Pair* kr = reinterpret_cast<const Pair*>(&ks[j][0]);
#pragma unroll
      for (int e = 0; e < kD / 2; ++e) {
        const float2 f = H::to_float2(kr[e]);
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
      const Pair* vr = reinterpret_cast<const Pair*>(&vs[j][0]);
#pragma unroll
      for (int e = 0; e < kD / 2; ++e) {
        const float2 f = H::to_float2(vr[e]);
        acc[2 * e] = fmaf(pj, f.x, acc[2 * e]);
        acc[2 * e + 1] = fmaf(pj, f.y, acc[2 * e + 1]);
      }
    }
    m = mt;
  }
  if (!active) return;
  const float inv = l > 0.f ? 1.f / l : 0.f;
  Pair* dst = reinterpret_cast<Pair*>(p.out + static_cast<size_t>(qi) * p.heads * kD + head * kD);
#pragma unroll
  for (int e = 0; e < kD / 2; ++e) dst[e] = H::from_float2(acc[2 * e] * inv, acc[2 * e + 1] * inv);
}

// Tensor-core variant: one block per (64- or 128-query tile, head); see attention_mma.cuh.
template <class T, int kWarps, bool kRopeK, bool kExp2, int kSplit>
__global__ void __launch_bounds__(32 * kWarps * kSplit, (kWarps == 4 ? 4 : 2) / kSplit)
    attention_mma_kernel(AttentionParams<T> p) {
  dev::pdl_prologue();
  extern __shared__ __align__(16) unsigned char attn_smem[];
  attn::attention_mma_tile<T, kWarps, kRopeK, kExp2, kSplit>(p, static_cast<int>(blockIdx.x),
                                                             static_cast<int>(blockIdx.y), attn_smem,
                                                             static_cast<int>(threadIdx.x), [] { __syncthreads(); });
}

template <class T, int kWarps, bool kRopeK, bool kExp2, int kSplit = 1>
void launch_mma_variant(const AttentionParams<T>& p, dim3 grid, cudaStream_t stream) {
  constexpr size_t smem = attn::attention_smem_bytes<kWarps, kSplit>();
  auto* kernel = attention_mma_kernel<T, kWarps, kRopeK, kExp2, kSplit>;
  if constexpr (smem > 48 * 1024) {
    // Opt in once per kernel (not a stream operation: allowed while a graph is being captured).
    static const cudaError_t opted =
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    LAYA_CUDA_CHECK(opted);
  }
  launch_kernel_smem(kernel, grid, dim3(32 * kWarps * kSplit), smem, stream, true, p);
}

template <class T, int kWarps>
void launch_mma(const AttentionParams<T>& p, dim3 grid, bool exp2, cudaStream_t stream) {
  const bool rope_k = p.rope_cos != nullptr && !p.k_rotated;
  if constexpr (kWarps == 4) {
    if (exp2 && p.key_split == 4)
      return rope_k ? launch_mma_variant<T, 4, true, true, 4>(p, grid, stream)
                    : launch_mma_variant<T, 4, false, true, 4>(p, grid, stream);
    if (exp2 && p.key_split == 2)
      return rope_k ? launch_mma_variant<T, 4, true, true, 2>(p, grid, stream)
                    : launch_mma_variant<T, 4, false, true, 2>(p, grid, stream);
  }
  if (rope_k)
    exp2 ? launch_mma_variant<T, kWarps, true, true>(p, grid, stream)
         : launch_mma_variant<T, kWarps, true, false>(p, grid, stream);
  else
    exp2 ? launch_mma_variant<T, kWarps, false, true>(p, grid, stream)
         : launch_mma_variant<T, kWarps, false, false>(p, grid, stream);
}

}  // namespace

template <class T>
void launch_attention(const AttentionParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.qkv && p.out && p.row_offsets && p.tiles && p.tile_capacity >= 0 && p.heads > 0 && p.window >= -1,
               ErrorKind::internal, "attention: bad parameters");
  LAYA_REQUIRE(p.rope_cos == nullptr || (p.rope_sin != nullptr && p.rope_len > 0 && !p.simt), ErrorKind::internal,
               "attention: fused RoPE needs both tables, a length, and the tensor-core kernel");
  LAYA_REQUIRE(p.query_tile == 64 || p.query_tile == 128, ErrorKind::internal, "attention: query tile {} (64 or 128)",
               p.query_tile);
  LAYA_REQUIRE(p.key_split == 1 || ((p.key_split == 2 || p.key_split == 4) && p.query_tile == 64 && !p.simt),
               ErrorKind::internal, "attention: key split {} (1, or 2 / 4 with 64-query tensor-core tiles)",
               p.key_split);
  LAYA_REQUIRE(!p.k_rotated || p.rope_cos != nullptr, ErrorKind::internal,
               "attention: k_rotated only applies with RoPE tables (q is still rotated in the kernel)");
  LAYA_REQUIRE(reinterpret_cast<uintptr_t>(p.qkv) % 16 == 0 && reinterpret_cast<uintptr_t>(p.rope_cos) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(p.rope_sin) % 16 == 0,
               ErrorKind::internal, "attention: qkv and RoPE tables must be 16-byte aligned");
  if (p.tile_capacity == 0) return;
  const dim3 grid(static_cast<unsigned>(p.tile_capacity), static_cast<unsigned>(p.heads));
  static const bool exp2 = [] {  // read once: every forward of the process takes the same kernel
    const char* v = std::getenv("LAYA_CUDA_ATTN_EXP2");
    return v == nullptr || v[0] != '0';
  }();
  if (p.simt) {
    if (p.query_tile == 64)
      launch_kernel(attention_kernel<T, 64>, grid, 64, stream, true, p);
    else
      launch_kernel(attention_kernel<T, 128>, grid, 128, stream, true, p);
  } else if (p.query_tile == 64) {
    launch_mma<T, 4>(p, grid, exp2, stream);
  } else {
    launch_mma<T, 8>(p, grid, exp2, stream);
  }
  LAYA_CUDA_CHECK_LAUNCH();
}

#define LAYA_INSTANTIATE_ATTENTION(T) template void launch_attention<T>(const AttentionParams<T>&, cudaStream_t);
LAYA_FOR_HALF16(LAYA_INSTANTIATE_ATTENTION)

}  // namespace laya::cuda
