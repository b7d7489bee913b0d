#include "backends/cuda/attention.cuh"

#include "backends/cuda/tile.h"
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/mma.cuh"
#include "backends/cuda/wgmma.cuh"

namespace laya::cuda {

namespace {

constexpr int kBK = 32;         // keys per shared-memory tile
constexpr int kD = 64;

template <class T, int kBQ>  // queries per block, one per thread
__global__ void __launch_bounds__(kBQ) attention_kernel(AttentionParams<T> p) {
  using H = dev::Half16<T>;
  using Pair = typename H::Pair;
  dev::pdl_prologue();
  __shared__ __align__(16) T ks[kBK][kD];
  __shared__ __align__(16) T vs[kBK][kD];
  const int tile = blockIdx.x;
  const int head = blockIdx.y;
  const int4 entry = reinterpret_cast<const int4*>(p.tiles)[tile];
  const int row = entry.x;
  if (row < 0) return;  // unused tile: uniform across the block
  const int q0 = entry.y, rs = entry.z, re = entry.w;
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

// Tensor-core variant (mma.sync m16n8k16 on T, fp32 accumulate; sm_80+): 4 warps x 16 queries,
// 64-key tiles in shared memory, online softmax in fp32, P rounded to T for P.V as FlashAttention
// does. Same tile table, masking and zero-key semantics as the SIMT kernel above.
constexpr int kStride = 72;  // padded smem row (16-bit elements): conflict-free fragment loads

using dev::cp_async16;
using dev::cp_async_commit;
using dev::cp_async_wait;
using dev::ldmatrix_x4;
using dev::ldmatrix_x4_trans;

// RoPE of 8 dims of one half (l) with the 8 dims 32 above them (h), exactly like rope_kernel:
// T(x1*c - x2*s), T(x2*c + x1*s).
template <class T>
__device__ __forceinline__ void rotate8(T* l, T* h, const float* cs, const float* sn) {
  using H = dev::Half16<T>;
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const float x1 = H::to_float(l[e]), x2 = H::to_float(h[e]);
    l[e] = H::from_float(__fadd_rn(__fmul_rn(x1, cs[e]), __fmul_rn(-x2, sn[e])));
    h[e] = H::from_float(__fadd_rn(__fmul_rn(x2, cs[e]), __fmul_rn(x1, sn[e])));
  }
}

// The 8 cos and 8 sin entries of dims c*8.. at position pos: 16-byte table reads (tables are
// 16-byte aligned: checked at launch).
__device__ __forceinline__ void load_table8(float* cs, float* sn, const float* cos_t, const float* sin_t, int pos, int c) {
  *reinterpret_cast<float4*>(&cs[0]) = *reinterpret_cast<const float4*>(cos_t + pos * 32 + c * 8);
  *reinterpret_cast<float4*>(&cs[4]) = *reinterpret_cast<const float4*>(cos_t + pos * 32 + c * 8 + 4);
  *reinterpret_cast<float4*>(&sn[0]) = *reinterpret_cast<const float4*>(sin_t + pos * 32 + c * 8);
  *reinterpret_cast<float4*>(&sn[4]) = *reinterpret_cast<const float4*>(sin_t + pos * 32 + c * 8 + 4);
}

// Loads dims [c*8, c*8+8) and [32+c*8, 32+c*8+8) of one q or k row (c < 4) into shared memory at
// dst_lo and dst_hi, rotated (rotate8) when cos != nullptr.
template <class T>
__device__ __forceinline__ void load_pair(T* dst_lo, T* dst_hi, const T* src, int c, bool valid, int pos,
                                          const float* cos_t, const float* sin_t) {
  uint4 lo = make_uint4(0, 0, 0, 0), hi = make_uint4(0, 0, 0, 0);
  if (valid) {
    lo = *reinterpret_cast<const uint4*>(src + c * 8);
    hi = *reinterpret_cast<const uint4*>(src + 32 + c * 8);
    if (cos_t != nullptr) {
      float cs[8], sn[8];
      load_table8(cs, sn, cos_t, sin_t, pos, c);
      rotate8(reinterpret_cast<T*>(&lo), reinterpret_cast<T*>(&hi), cs, sn);
    }
  }
  *reinterpret_cast<uint4*>(dst_lo) = lo;
  *reinterpret_cast<uint4*>(dst_hi) = hi;
}

// load_pair in two steps, so that a caller can have the loads of several pairs in flight at once
// before any of them is used: fetch_pair loads (zeros for an invalid row), put_pair rotates (where
// the row is valid and there are tables) and stores.
struct PairData {
  uint4 lo, hi;
  float cs[8], sn[8];
  bool rotate;
};
template <class T>
__device__ __forceinline__ void fetch_pair(PairData& d, const T* src, int c, bool valid, int pos, const float* cos_t,
                                           const float* sin_t) {
  d.lo = d.hi = make_uint4(0, 0, 0, 0);
  d.rotate = valid && cos_t != nullptr;
  if (valid) {
    d.lo = *reinterpret_cast<const uint4*>(src + c * 8);
    d.hi = *reinterpret_cast<const uint4*>(src + 32 + c * 8);
    if (cos_t != nullptr) load_table8(d.cs, d.sn, cos_t, sin_t, pos, c);
  }
}
template <class T>
__device__ __forceinline__ void put_pair(T* dst_lo, T* dst_hi, PairData d) {
  if (d.rotate) rotate8(reinterpret_cast<T*>(&d.lo), reinterpret_cast<T*>(&d.hi), d.cs, d.sn);
  *reinterpret_cast<uint4*>(dst_lo) = d.lo;
  *reinterpret_cast<uint4*>(dst_hi) = d.hi;
}

// kRopeK: K is rotated while it is loaded (through registers; small batches, where each K tile is
// seen by one query tile). Otherwise K arrives already rotated (launch_rope k_only, once per
// layer) or needs no rotation, and K and V tiles stream in with cp.async, double-buffered: the
// next 64-key tile loads while this one is computed. V stays [key][dim] in shared memory and
// ldmatrix.trans builds the P.V fragments (the same values the transposed copy gave: bitwise
// equal results).
// kExp2: softmax in log2 units with exp2f of one fused multiply-add per score and mask-free full
// tiles (the default; LAYA_CUDA_ATTN_EXP2=0 selects the expf form, the reference the engine was
// first validated with).
constexpr float kLog2e = 1.4426950408889634f;

// kWarps: a group of 4 warps (one warpgroup) takes a tile of 64 queries (16 a warp); <= 128
// registers per thread. (Tiles of 128 queries on 8 warps were slower in both forms and were
// removed in session 44: docs/benchmarks/cuda.md items 46 and 221.)
constexpr int kWarps = 4;
// kSplit (key split, AttentionParams::key_split; exp2 form): kSplit groups of
// kWarps warps share the query tile, each group runs its own share of the 64-key tiles (own
// double buffers, own named barrier), and group 0 merges the partial softmax states in group
// order at the end. For grids too small to fill the GPU, where each block would otherwise walk
// every key tile alone.
// kWg (sm_90a, AttentionParams::wgmma; exp2 form): the two products of a key tile are warpgroup
// MMAs (wgmma m64n64k16; each group of 4 warps is one warpgroup) instead of 64 mma.sync and 32
// ldmatrix per warp: q . K^T with both operands by descriptor, P . V with P from registers. The q,
// K and V tiles are then stored with the 128-byte swizzle wgmma reads (rows of 64 elements, chunk c
// of row j at chunk c ^ (j % 8)) instead of padded rows, and made visible to wgmma's async proxy
// after each load; the softmax between the products is the same.
// Shared memory is dynamic: per group 2 K and 2 V tiles (the merge reuses them), then the q tile.
template <bool kWg>
constexpr int row_elems() {  // a shared-memory row of a q, K or V tile
  return kWg ? 64 : kStride;
}
template <int kSplit, bool kWg>
constexpr size_t attention_smem_bytes() {  // 16-bit elements, + alignment slack for the swizzle
  return static_cast<size_t>((4 * 64 * kSplit + 16 * kWarps) * row_elems<kWg>()) * 2 + (kWg ? 1024 : 0);
}
// Element offset of the 16-byte chunk c (8 elements) of row j in a q, K or V tile.
template <bool kWg>
__device__ __forceinline__ int tile_at(int j, int c) {
  return kWg ? j * 64 + ((c ^ (j & 7)) << 3) : j * kStride + (c << 3);
}

// kBlocks: blocks per SM the registers are budgeted for (0: the default, 4 / key split); 5 is the
// five-blocks form (AttentionParams::five_blocks).
template <class T, bool kRopeK, bool kExp2, int kSplit, bool kWg, int kBlocks = 0>
__global__ void __launch_bounds__(32 * kWarps * kSplit, kBlocks > 0 ? kBlocks : 4 / kSplit)
    attention_mma_kernel(AttentionParams<T> p) {
  static_assert(kSplit == 1 || kExp2, "key split: exp2 form");
  static_assert(!kWg || kExp2, "wgmma: exp2 form");
  using Pair = typename dev::Half16<T>::Pair;
  constexpr int kBQ = 16 * kWarps, kThreads = 32 * kWarps, kBlockThreads = kThreads * kSplit;
  constexpr int kTile = 64 * row_elems<kWg>();
  const int tile = blockIdx.x;
  const int head = blockIdx.y;
  // The tile table is part of the staging block, which the forward's first kernel wrote; that kernel
  // has completed by the time this one starts (see pdl_prologue, common.cuh), so the entry is read
  // before the wait, from L2: one dependent round trip fewer after it under PDL.
  const int4 entry = __ldcg(reinterpret_cast<const int4*>(p.tiles) + tile);
  if constexpr (kRopeK) {
    // The RoPE table rows of the block's key positions (they include its queries'): constants, sent
    // to L2 before the wait — a table is read once a layer (the global one every third), and the
    // layers' weights streaming through L2 in between evict it (docs/benchmarks/cuda.md item 106).
    if (p.prefetch_rope && entry.x >= 0 && entry.x != p.zero_row) {
      const int qe = min(entry.w, entry.y + min(p.query_tile, kBQ));
      const int klo = p.window >= 0 ? max(entry.z, entry.y - p.window) : entry.z;
      const int khi = p.window >= 0 ? min(entry.w, qe + p.window) : entry.w;
      for (int t = klo + static_cast<int>(threadIdx.x); t < khi; t += kBlockThreads) {
        const int pos = min(t - entry.z, p.rope_len - 1);
        dev::prefetch_l2(p.rope_cos + pos * 32);
        dev::prefetch_l2(p.rope_sin + pos * 32);
      }
    }
  }
  dev::pdl_prologue();
  extern __shared__ __align__(16) unsigned char attn_smem[];
  T* kv = reinterpret_cast<T*>(kWg ? (reinterpret_cast<uintptr_t>(attn_smem) + 1023) & ~uintptr_t{1023}
                                   : reinterpret_cast<uintptr_t>(attn_smem));
  T* qs = kv + 4 * kSplit * kTile;
  const int grp = kSplit == 1 ? 0 : static_cast<int>(threadIdx.x) / kThreads;  // key group
  auto ks = reinterpret_cast<T(*)[kTile]>(kv + grp * 4 * kTile);
  auto vs = reinterpret_cast<T(*)[kTile]>(kv + grp * 4 * kTile + 2 * kTile);
  // The group's barrier: the whole block without a split, else named barrier 1 + grp.
  auto group_sync = [grp] {
    if constexpr (kSplit == 1)
      __syncthreads();
    else
      asm volatile("bar.sync %0, %1;" ::"r"(grp + 1), "n"(kThreads) : "memory");
  };
  const int row = entry.x;
  if (row < 0) return;
  const int q0 = entry.y, rs = entry.z, re = entry.w;
  // The tile's queries: [q0, qe). A tile of fewer than kBQ queries (AttentionParams::query_tile 16
  // or 32) leaves the block's last query rows empty: zero q, never stored.
  const int qe = min(re, q0 + min(p.query_tile, kBQ));
  if (row == p.zero_row) {  // zeros for the row's queries, 16 bytes per thread and step
    for (int i = static_cast<int>(threadIdx.x); i < kBQ * (kD / 8); i += kBlockThreads) {
      const int t = q0 + i / (kD / 8);
      if (t < qe)
        *reinterpret_cast<uint4*>(p.out + static_cast<size_t>(t) * p.heads * kD + head * kD + (i % (kD / 8)) * 8) =
            make_uint4(0, 0, 0, 0);
    }
    return;
  }
  const size_t ld = static_cast<size_t>(3) * p.heads * kD;
  const size_t qoff = static_cast<size_t>(head) * kD;
  const size_t koff = static_cast<size_t>(p.heads) * kD + head * kD;
  const size_t voff = static_cast<size_t>(2) * p.heads * kD + head * kD;
  const int tid = kSplit == 1 ? static_cast<int>(threadIdx.x) : static_cast<int>(threadIdx.x) % kThreads;
  // exp2 of the softmax: exp2f, or with wgmma the bare MUFU instruction (results below 2^-126, which
  // exp2f returns as subnormals, become 0: a probability that small changes no output; and 4
  // instructions of the issue-bound loop fewer per score, docs/benchmarks/cuda.md item 31).
  auto exp2 = [](float x) {
    if constexpr (kWg)
      return dev::ex2_approx_ftz(x);
    else
      return exp2f(x);
  };
  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, tig = lane & 3;

  const int tmax = p.rope_len - 1;
  int lo = rs, hi = re;
  if (p.window >= 0) {
    lo = max(rs, q0 - p.window);
    hi = min(re, qe - 1 + p.window + 1);
  }
  // This group's keys: its share of the 64-key tiles of [lo, hi) (whole tiles, so the masks
  // against hi below stay exact).
  int glo = lo, ghi = hi;
  if constexpr (kSplit > 1) {
    const int per = ((hi - lo + 63) / 64 + kSplit - 1) / kSplit;
    glo = min(hi, lo + grp * per * 64);
    ghi = min(hi, lo + (grp + 1) * per * 64);
  }
  // Each thread copies the same 16-byte column chunk of kRowsPer key rows of every tile, so the
  // addresses are mostly computed once.
  constexpr int kRowsPer = 64 * 8 / kThreads, kRowStep = kThreads / 8;
  const int c8 = (tid & 7) * 8, j0 = tid >> 3;
  // kRowStep is a multiple of 8, so all of a thread's rows have the same swizzled chunk: their
  // shared-memory offsets are compile-time steps from the first. Sources are unsigned 32-bit byte
  // offsets (a bucket's qkv is far below 4 GiB) from per-thread K and V bases, one offset for both;
  // rows past hi are clamped to hi - 1, a valid row, whose 16 bytes are not read (zero-filled).
  const int dst0 = tile_at<kWg>(j0, c8 >> 3);
  const uint32_t row_bytes = 3u * static_cast<uint32_t>(p.heads) * kD * sizeof(T);
  const char* kbase = reinterpret_cast<const char*>(p.qkv + koff + c8);
  const char* vbase = reinterpret_cast<const char*>(p.qkv + voff + c8);
  // with_k false (kRopeK): V only; the caller loads K.
  auto stage = [&](int buf, int kb, bool with_k = true) {
#pragma unroll
    for (int r = 0; r < kRowsPer; ++r) {
      const int j = j0 + r * kRowStep;
      const uint32_t off = static_cast<uint32_t>(min(kb + j, hi - 1)) * row_bytes;
      const int dst = dst0 + r * kRowStep * row_elems<kWg>();
      if constexpr (!kRopeK) cp_async16(&ks[buf][dst], kbase + off, kb + j < hi);
      cp_async16(&vs[buf][dst], vbase + off, kb + j < hi);
    }
    if constexpr (kRopeK) {
      // Unrolled (a fixed count per thread), so every thread's loads are in flight at once
      // instead of one L2 round trip per pair.
#pragma unroll
      for (int r = 0; r < 64 * 4 / kThreads; ++r) {
        if (!with_k) break;
        const int i = tid + r * kThreads;
        const int j = i >> 2, c = i & 3;
        const int t = kb + j;
        load_pair(&ks[buf][tile_at<kWg>(j, c)], &ks[buf][tile_at<kWg>(j, 4 + c)], p.qkv + t * ld + koff, c, t < hi,
                  min(t - rs, tmax), p.rope_cos, p.rope_sin);
      }
    }
    cp_async_commit();
  };
  // The first K/V tile is requested before the queries are loaded, so the two overlap. With kRopeK
  // on wgmma the first tile's K (synchronous loads through registers) is fetched together with the
  // queries, so both arrive in one round trip instead of one after the other (the mma.sync forms
  // would spill the registers that takes: there the K loads come first). Measured on the H200
  // (docs/benchmarks/cuda.md item 137): 1x160 -0.012..-0.014 ms, 1x192 -0.007, one row of
  // 256-512 tokens +-0.004, 4x128 +0.005..+0.008.
  constexpr bool kJointK = kRopeK && kWg;
  if (glo < ghi) stage(0, glo, !kJointK);
  constexpr int kQPairs = (kBQ * 4 + kBlockThreads - 1) / kBlockThreads;
  if constexpr (kJointK) {
    constexpr int kKPairs = 64 * 4 / kThreads;
    PairData kd[kKPairs], qd[kQPairs];
#pragma unroll
    for (int r = 0; r < kKPairs; ++r) {
      const int i = tid + r * kThreads;
      const int t = glo + (i >> 2);
      fetch_pair(kd[r], p.qkv + t * ld + koff, i & 3, glo < ghi && t < hi, min(t - rs, tmax), p.rope_cos, p.rope_sin);
    }
#pragma unroll
    for (int k = 0; k < kQPairs; ++k) {
      const int i = static_cast<int>(threadIdx.x) + k * kBlockThreads;
      const int t = q0 + (i >> 2);
      fetch_pair(qd[k], p.qkv + t * ld + qoff, i & 3, t < qe && i < kBQ * 4, min(t - rs, tmax), p.rope_cos,
                 p.rope_sin);
    }
    if (glo < ghi) {
#pragma unroll
      for (int r = 0; r < kKPairs; ++r) {
        const int i = tid + r * kThreads;
        const int j = i >> 2, c = i & 3;
        put_pair(&ks[0][tile_at<kWg>(j, c)], &ks[0][tile_at<kWg>(j, 4 + c)], kd[r]);
      }
    }
#pragma unroll
    for (int k = 0; k < kQPairs; ++k) {
      const int i = static_cast<int>(threadIdx.x) + k * kBlockThreads;
      if (kBQ * 4 % kBlockThreads != 0 && i >= kBQ * 4) break;
      const int r = i >> 2, c = i & 3;
      put_pair(&qs[tile_at<kWg>(r, c)], &qs[tile_at<kWg>(r, 4 + c)], qd[k]);
    }
  } else {
#pragma unroll
    for (int k = 0; k < kQPairs; ++k) {  // unrolled like the K loads above
      const int i = static_cast<int>(threadIdx.x) + k * kBlockThreads;
      if (kBQ * 4 % kBlockThreads != 0 && i >= kBQ * 4) break;
      const int r = i >> 2, c = i & 3;
      const int t = q0 + r;
      load_pair(&qs[tile_at<kWg>(r, c)], &qs[tile_at<kWg>(r, 4 + c)], p.qkv + t * ld + qoff, c, t < qe,
                min(t - rs, tmax), p.rope_cos, p.rope_sin);
    }
  }
  const int qa = q0 + warp * 16 + g, qb = qa + 8;  // this thread's two query rows
  // The keys each of them may attend to: [key_lo, key_hi] (every key of the loop is >= lo).
  const int key_lo_a = p.window < 0 ? lo : qa - p.window, key_lo_b = p.window < 0 ? lo : qb - p.window;
  const int key_hi_a = p.window < 0 ? hi - 1 : min(hi - 1, qa + p.window);
  const int key_hi_b = p.window < 0 ? hi - 1 : min(hi - 1, qb + p.window);
  float o[8][4];
#pragma unroll
  for (int n = 0; n < 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  float m_a = -INFINITY, m_b = -INFINITY, l_a = 0.f, l_b = 0.f;
  uint32_t qf[4][4];  // mma.sync's A fragments of q (wgmma reads q from shared memory)
  if constexpr (kWg) dev::fence_proxy_async_smem();  // the q tile's plain stores, for wgmma
  __syncthreads();
  if constexpr (!kWg) {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const T* base = &qs[(warp * 16 + g) * kStride + kk * 16 + tig * 2];
      qf[kk][0] = *reinterpret_cast<const uint32_t*>(base);
      qf[kk][1] = *reinterpret_cast<const uint32_t*>(base + 8 * kStride);
      qf[kk][2] = *reinterpret_cast<const uint32_t*>(base + 8);
      qf[kk][3] = *reinterpret_cast<const uint32_t*>(base + 8 * kStride + 8);
    }
  }
  // wgmma descriptors: this warpgroup's 64 rows of the q tile, the first K and V buffers; a step of
  // 16 dims is +2 (32 bytes), of 16 keys of V +128 (2048 bytes), the second buffer +kTile * 2 / 16.
  const uint64_t q_desc = dev::sw128_desc(qs + (warp >> 2) * 64 * 64);
  const uint64_t k_desc = dev::sw128_desc(ks[0]), v_desc = dev::sw128_desc_mn(vs[0]);
  constexpr uint64_t kBufDesc = kTile * 2 / 16;
  int buf = 0;
  for (int kb = glo; kb < ghi; kb += 64, buf ^= 1) {
    // The buffer written here was last read in the previous iteration, which ended in a barrier.
    if (kb + 64 < ghi) {
      stage(buf ^ 1, kb + 64);
      cp_async_wait<1>();
    } else {
      cp_async_wait<0>();
    }
    // wgmma reads shared memory through the async proxy: this thread's writes to the tile (cp.async
    // and, with kRopeK, plain stores) become visible to it only after a proxy fence.
    if constexpr (kWg) dev::fence_proxy_async_smem();
    group_sync();
    const T* kt = ks[buf];
    const T* vtile = vs[buf];
    float s[8][4];
    if constexpr (kWg) {
      // S = q . K^T: both operands K-major (rows of q and of K are 64 dims); 16 dims (32 bytes) per
      // step. scale_d 0 on the first step: s needs no zeroing.
      dev::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) dev::wgmma_m64n64k16_ss<T>(s, q_desc + 2 * kk, k_desc + buf * kBufDesc + 2 * kk, kk);
      dev::wgmma_commit();
      dev::wgmma_wait<0>();
      dev::fence_regs(s);
    } else {
#pragma unroll
      for (int n = 0; n < 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
      // K fragments by ldmatrix: keys n*8.. and (n+1)*8.., dims kk*16.. and kk*16+8.. (the b0/b1 pairs
      // of two 8-key tiles); each s[n] still accumulates over kk = 0..3 in order.
#pragma unroll
      for (int n = 0; n < 8; n += 2)
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
          uint32_t b[4];
          ldmatrix_x4(b, &kt[(n * 8 + (lane & 7) + ((lane >> 4) << 3)) * kStride + kk * 16 + ((lane >> 3) & 1) * 8]);
          dev::mma16<T>(s[n], qf[kk], b[0], b[1]);
          dev::mma16<T>(s[n + 1], qf[kk], b[2], b[3]);
        }
    }
    float mx_a = m_a, mx_b = m_b;
    if constexpr (kExp2) {
      // The running max is kept on raw scores (the scale is positive); each probability is then
      // exp2(s * scale * log2 e - max * scale * log2 e) with one fused multiply-add. A tile that lies
      // wholly inside the row and the window of every query of the block skips the masks.
      const bool full = kb + 64 <= hi && (p.window < 0 || (kb >= q0 + kBQ - 1 - p.window && kb + 63 <= q0 + p.window));
      if (!full) {
        // key < hi and |q - key| <= window, as bounds relative to this thread's first key of the
        // tile, so each score costs two compares against compile-time offsets.
        const int first = kb + tig * 2;
        const int alo = key_lo_a - first, ahi = key_hi_a - first, blo = key_lo_b - first, bhi = key_hi_b - first;
        // A tile at a window's edge binds one bound only (the first tile of a local layer the lower,
        // the last the upper): one compare per score there (same results; a uniform branch there).
        auto mask = [&](auto in_a, auto in_b) {
#pragma unroll
          for (int n = 0; n < 8; ++n)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
              const int off = n * 8 + c;
              s[n][c] = in_a(off) ? s[n][c] : -INFINITY;
              s[n][2 + c] = in_b(off) ? s[n][2 + c] : -INFINITY;
            }
        };
        if (alo <= 0 && blo <= 0)
          mask([=](int off) { return off <= ahi; }, [=](int off) { return off <= bhi; });
        else if (ahi >= 63 && bhi >= 63)
          mask([=](int off) { return off >= alo; }, [=](int off) { return off >= blo; });
        else
          mask([=](int off) { return off >= alo && off <= ahi; }, [=](int off) { return off >= blo && off <= bhi; });
      }
      // Row maxima as trees (depth 4, not a 16-long dependent chain; max is exact in any order).
      float ta[8], tb[8];
#pragma unroll
      for (int n = 0; n < 8; ++n) {
        ta[n] = fmaxf(s[n][0], s[n][1]);
        tb[n] = fmaxf(s[n][2], s[n][3]);
      }
#pragma unroll
      for (int w = 4; w > 0; w >>= 1)
#pragma unroll
        for (int i = 0; i < w; ++i) {
          ta[i] = fmaxf(ta[i], ta[i + w]);
          tb[i] = fmaxf(tb[i], tb[i + w]);
        }
      mx_a = fmaxf(mx_a, ta[0]);
      mx_b = fmaxf(mx_b, tb[0]);
    } else {
#pragma unroll
      for (int n = 0; n < 8; ++n)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const int key = kb + n * 8 + tig * 2 + c;
          const bool in = key < hi;
          const bool va = in && (p.window < 0 || abs(qa - key) <= p.window);
          const bool vb = in && (p.window < 0 || abs(qb - key) <= p.window);
          s[n][c] = va ? s[n][c] * p.scale : -INFINITY;
          s[n][2 + c] = vb ? s[n][2 + c] * p.scale : -INFINITY;
          mx_a = fmaxf(mx_a, s[n][c]);
          mx_b = fmaxf(mx_b, s[n][2 + c]);
        }
    }
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 1));
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 2));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 1));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 2));
    // Rescale what was accumulated under the old running max, then the tile's probabilities.
    float corr_a, corr_b, base_a = 0.f, base_b = 0.f;
    const float sl = p.scale * kLog2e;
    if constexpr (kExp2) {
      // No valid key yet (max -inf): subtract 0 instead, so exp2(-inf - 0) = 0, never NaN.
      base_a = mx_a == -INFINITY ? 0.f : mx_a * sl;
      base_b = mx_b == -INFINITY ? 0.f : mx_b * sl;
      corr_a = exp2(fmaf(m_a, sl, -base_a));
      corr_b = exp2(fmaf(m_b, sl, -base_b));
    } else {
      corr_a = mx_a == -INFINITY ? 1.f : expf(m_a - mx_a);
      corr_b = mx_b == -INFINITY ? 1.f : expf(m_b - mx_b);
    }
    m_a = mx_a;
    m_b = mx_b;
    l_a *= corr_a;
    l_b *= corr_b;
#pragma unroll
    for (int n = 0; n < 8; ++n) {
      o[n][0] *= corr_a;
      o[n][1] *= corr_a;
      o[n][2] *= corr_b;
      o[n][3] *= corr_b;
    }
    uint32_t pf[4][4];
    if constexpr (kExp2) {
      float sa[8], sb[8];  // the tile's row sums, added as trees (depth 3) then to l
#pragma unroll
      for (int n = 0; n < 8; ++n) {
        const float p0 = exp2(fmaf(s[n][0], sl, -base_a)), p1 = exp2(fmaf(s[n][1], sl, -base_a));
        const float p2 = exp2(fmaf(s[n][2], sl, -base_b)), p3 = exp2(fmaf(s[n][3], sl, -base_b));
        sa[n] = p0 + p1;
        sb[n] = p2 + p3;
        const int t = n >> 1, half = n & 1;
        pf[t][half * 2 + 0] = dev::pack16<T>(p0, p1);
        pf[t][half * 2 + 1] = dev::pack16<T>(p2, p3);
      }
#pragma unroll
      for (int w = 4; w > 0; w >>= 1)
#pragma unroll
        for (int i = 0; i < w; ++i) {
          sa[i] += sa[i + w];
          sb[i] += sb[i + w];
        }
      l_a += sa[0];
      l_b += sb[0];
    } else {
#pragma unroll
      for (int n = 0; n < 8; ++n) {
        const float p0 = s[n][0] == -INFINITY ? 0.f : expf(s[n][0] - m_a);
        const float p1 = s[n][1] == -INFINITY ? 0.f : expf(s[n][1] - m_a);
        const float p2 = s[n][2] == -INFINITY ? 0.f : expf(s[n][2] - m_b);
        const float p3 = s[n][3] == -INFINITY ? 0.f : expf(s[n][3] - m_b);
        l_a += p0 + p1;
        l_b += p2 + p3;
        const int t = n >> 1, half = n & 1;
        pf[t][half * 2 + 0] = dev::pack16<T>(p0, p1);
        pf[t][half * 2 + 1] = dev::pack16<T>(p2, p3);
      }
    }
    if constexpr (kWg) {
      // O += P . V: V is the MN-major operand (its rows are keys, the K dimension); 16 keys (two
      // 1024-byte swizzle atoms) per step. Done before the barrier that lets the tile be reloaded.
      dev::fence_regs(o);
      dev::wgmma_fence();
#pragma unroll
      for (int t = 0; t < 4; ++t) dev::wgmma_m64n64k16_rs<T, true>(o, pf[t], v_desc + buf * kBufDesc + 128 * t, 1);
      dev::wgmma_commit();
      dev::wgmma_wait<0>();
      dev::fence_regs(o);
    } else {
      // For each output tile o[n] the mma order over the 16-key chunks t is 0..3, as before.
#pragma unroll
      for (int t = 0; t < 4; ++t)
#pragma unroll
        for (int n = 0; n < 8; n += 2) {
          uint32_t b[4];
          ldmatrix_x4_trans(b, &vtile[(t * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * kStride + n * 8 + (lane >> 4) * 8]);
          dev::mma16<T>(o[n], pf[t], b[0], b[1]);
          dev::mma16<T>(o[n + 1], pf[t], b[2], b[3]);
        }
    }
    group_sync();
  }
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 1);
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 2);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 1);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 2);
  if constexpr (kSplit > 1) {
    // Groups 1.. leave (max, sum, accumulators) in the K/V area, group 0 rescales each to the
    // common max and adds them in group order (exp2 form: maxima are raw scores).
    constexpr int kVals = 4 + 32;
    float* scratch = reinterpret_cast<float*>(kv);
    __syncthreads();  // every group is done with its K/V tiles
    if (grp > 0) {
      float* mine = scratch + ((grp - 1) * kThreads + tid) * kVals;
      mine[0] = m_a, mine[1] = m_b, mine[2] = l_a, mine[3] = l_b;
#pragma unroll
      for (int n = 0; n < 8; ++n)
#pragma unroll
        for (int c = 0; c < 4; ++c) mine[4 + 4 * n + c] = o[n][c];
    }
    __syncthreads();
    if (grp > 0) return;
    float mx_a = m_a, mx_b = m_b;
#pragma unroll
    for (int sp = 1; sp < kSplit; ++sp) {
      const float* other = scratch + ((sp - 1) * kThreads + tid) * kVals;
      mx_a = fmaxf(mx_a, other[0]);
      mx_b = fmaxf(mx_b, other[1]);
    }
    const float sl = p.scale * kLog2e;
    const float base_a = mx_a == -INFINITY ? 0.f : mx_a * sl, base_b = mx_b == -INFINITY ? 0.f : mx_b * sl;
    auto add_scaled = [&](float ma, float mb, float la, float lb, auto&& acc, bool first) {
      const float ca = exp2(fmaf(ma, sl, -base_a)), cb = exp2(fmaf(mb, sl, -base_b));
      l_a = first ? la * ca : fmaf(la, ca, l_a);
      l_b = first ? lb * cb : fmaf(lb, cb, l_b);
#pragma unroll
      for (int n = 0; n < 8; ++n) {
        o[n][0] = first ? acc(n, 0) * ca : fmaf(acc(n, 0), ca, o[n][0]);
        o[n][1] = first ? acc(n, 1) * ca : fmaf(acc(n, 1), ca, o[n][1]);
        o[n][2] = first ? acc(n, 2) * cb : fmaf(acc(n, 2), cb, o[n][2]);
        o[n][3] = first ? acc(n, 3) * cb : fmaf(acc(n, 3), cb, o[n][3]);
      }
    };
    add_scaled(m_a, m_b, l_a, l_b, [&](int n, int c) { return o[n][c]; }, true);
#pragma unroll
    for (int sp = 1; sp < kSplit; ++sp) {
      const float* other = scratch + ((sp - 1) * kThreads + tid) * kVals;
      add_scaled(other[0], other[1], other[2], other[3], [&](int n, int c) { return other[4 + 4 * n + c]; }, false);
    }
  }
  const float ia = l_a > 0.f ? 1.f / l_a : 0.f, ib = l_b > 0.f ? 1.f / l_b : 0.f;
  const size_t ldo = static_cast<size_t>(p.heads) * kD;
#pragma unroll
  for (int n = 0; n < 8; ++n) {
    const int col = head * kD + n * 8 + tig * 2;
    if (qa < qe)
      *reinterpret_cast<Pair*>(p.out + qa * ldo + col) = dev::Half16<T>::from_float2(o[n][0] * ia, o[n][1] * ia);
    if (qb < qe)
      *reinterpret_cast<Pair*>(p.out + qb * ldo + col) = dev::Half16<T>::from_float2(o[n][2] * ib, o[n][3] * ib);
  }
}

// AttentionParams::one_block_per_sm: dynamic shared memory a block asks for so that two do not
// fit on one SM of the current device (one more than half its shared memory; within a block's
// opt-in limit on every GPU the kernels run on).
size_t one_block_smem_bytes() {
  static const size_t bytes = [] {
    int dev = 0, per_sm = 0;
    LAYA_CUDA_CHECK(cudaGetDevice(&dev));
    LAYA_CUDA_CHECK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    return static_cast<size_t>(per_sm) / 2 + 16;
  }();
  return bytes;
}

template <class T, bool kRopeK, bool kExp2, int kSplit = 1, bool kWg = false, int kBlocks = 0>
void launch_mma_variant(const AttentionParams<T>& p, dim3 grid, cudaStream_t stream) {
  constexpr size_t smem = attention_smem_bytes<kSplit, kWg>();
  auto* kernel = attention_mma_kernel<T, kRopeK, kExp2, kSplit, kWg, kBlocks>;
  // Opt in once per kernel (not a stream operation: allowed while a graph is being captured), to
  // the one-block padding too where that is larger.
  static const size_t opt_in = std::max(smem, one_block_smem_bytes());
  static const cudaError_t opted =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(opt_in));
  LAYA_CUDA_CHECK(opted);
  const size_t launch_smem = p.one_block_per_sm ? std::max(smem, one_block_smem_bytes()) : smem;
  if constexpr (kBlocks > 4) {  // five blocks' shared memory needs the largest carveout
    static const cudaError_t carved =
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    LAYA_CUDA_CHECK(carved);
  }
  launch_kernel_smem(kernel, grid, dim3(32 * kWarps * kSplit), launch_smem, stream, true, p);
}

// The 64-query exp2 kernels: key split 1, 2 or 4; wgmma or mma.sync.
template <class T, int kSplit>
void launch_exp2_split(const AttentionParams<T>& p, dim3 grid, bool rope_k, cudaStream_t stream) {
  if constexpr (kSplit == 1) {
    if (p.five_blocks) return launch_mma_variant<T, false, true, 1, true, 5>(p, grid, stream);
  }
  if (p.wgmma)
    rope_k ? launch_mma_variant<T, true, true, kSplit, true>(p, grid, stream)
           : launch_mma_variant<T, false, true, kSplit, true>(p, grid, stream);
  else
    rope_k ? launch_mma_variant<T, true, true, kSplit>(p, grid, stream)
           : launch_mma_variant<T, false, true, kSplit>(p, grid, stream);
}

template <class T>
void launch_mma(const AttentionParams<T>& p, dim3 grid, bool exp2, cudaStream_t stream) {
  const bool rope_k = p.rope_cos != nullptr && !p.k_rotated;
  if (exp2 && p.key_split == 4) return launch_exp2_split<T, 4>(p, grid, rope_k, stream);
  if (exp2 && p.key_split == 2) return launch_exp2_split<T, 2>(p, grid, rope_k, stream);
  if (exp2) return launch_exp2_split<T, 1>(p, grid, rope_k, stream);
  rope_k ? launch_mma_variant<T, true, false>(p, grid, stream) : launch_mma_variant<T, false, false>(p, grid, stream);
}

bool exp2_form() {  // read once: every forward of the process takes the same kernel
  static const bool on = [] {
    const char* v = std::getenv("LAYA_CUDA_ATTN_EXP2");
    return v == nullptr || v[0] != '0';
  }();
  return on;
}

}  // namespace

bool attention_wgmma_supported() {
  static const bool runs = sm90a_kernel_runs(attention_mma_kernel<__nv_bfloat16, false, true, 1, true>);
  return exp2_form() && runs;
}

template <class T>
void launch_attention(const AttentionParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.qkv && p.out && p.tiles && p.tile_capacity >= 0 && p.heads > 0 && p.window >= -1 &&
                   reinterpret_cast<uintptr_t>(p.tiles) % 16 == 0,
               ErrorKind::internal, "attention: bad parameters");
  LAYA_REQUIRE(p.rope_cos == nullptr || (p.rope_sin != nullptr && p.rope_len > 0 && !p.simt), ErrorKind::internal,
               "attention: fused RoPE needs both tables, a length, and the tensor-core kernel");
  LAYA_REQUIRE(p.query_tile == 64 || (!p.simt && (p.query_tile == 16 || p.query_tile == 32)), ErrorKind::internal,
               "attention: query tile {} (64; 16 or 32 with the tensor-core kernel)", p.query_tile);
  LAYA_REQUIRE(p.key_split == 1 || ((p.key_split == 2 || p.key_split == 4) && !p.simt), ErrorKind::internal,
               "attention: key split {} (1, or 2 / 4 with the tensor-core kernel)", p.key_split);
  LAYA_REQUIRE(!p.k_rotated || p.rope_cos != nullptr, ErrorKind::internal,
               "attention: k_rotated only applies with RoPE tables (q is still rotated in the kernel)");
  LAYA_REQUIRE(reinterpret_cast<uintptr_t>(p.qkv) % 16 == 0 && reinterpret_cast<uintptr_t>(p.rope_cos) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(p.rope_sin) % 16 == 0,
               ErrorKind::internal, "attention: qkv and RoPE tables must be 16-byte aligned");
  LAYA_REQUIRE(!p.wgmma || (attention_wgmma_supported() && !p.simt), ErrorKind::internal,
               "attention: wgmma needs the sm_90a kernels, the exp2 form and the tensor-core kernel");
  LAYA_REQUIRE(!p.five_blocks || attention_five_blocks_form(p), ErrorKind::internal,
               "attention: five blocks per SM is the wgmma form without a key split or a K rotation");
  LAYA_REQUIRE(!p.one_block_per_sm || (!p.five_blocks && !p.simt), ErrorKind::internal,
               "attention: one block per SM is for the tensor-core kernel without the five-blocks form");
  if (p.tile_capacity == 0) return;
  const dim3 grid(static_cast<unsigned>(p.tile_capacity), static_cast<unsigned>(p.heads));
  if (p.simt)
    launch_kernel(attention_kernel<T, 64>, grid, 64, stream, true, p);
  else
    launch_mma<T>(p, grid, exp2_form(), stream);
  LAYA_CUDA_CHECK_LAUNCH();
}

#define LAYA_INSTANTIATE_ATTENTION(T) template void launch_attention<T>(const AttentionParams<T>&, cudaStream_t);
LAYA_FOR_HALF16(LAYA_INSTANTIATE_ATTENTION)

}  // namespace laya::cuda
