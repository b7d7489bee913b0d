// Bidirectional multi-head attention over packed varlen rows (head_dim 64), global or windowed
// (keys with |i - j| <= window), reading q|k|v from one [tokens, 3*heads*64] buffer of 16-bit T
// (the precision mode's type, __nv_bfloat16 or __half) and writing [tokens, heads*64] T. fp32 scores, softmax and accumulation; a query with no valid key
// writes zeros, and so does every query of the zero_row slot. Two kernels: tensor-core (default; mma.sync, or wgmma on sm_90a with AttentionParams::wgmma) and plain fp32 SIMT. Work is a table of query tiles (16 to 64 queries: row slot, first query, row start, row end) built on the host, so a
// CUDA Graph captured for a bucket serves any row lengths that fit it.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

template <class T>
struct AttentionParams {
  const T* qkv = nullptr;                // [tokens, 3 * heads * 64]
  T* out = nullptr;                      // [tokens, heads * 64]
  // [tile_capacity * 4], 16-byte aligned: (row slot, first query, row start, row end) or -1s. The
  // row's bounds travel with the tile so that a block reads them in its first load instead of a
  // second, dependent one (a row-offset lookup): one global round trip less before its loads.
  const int32_t* tiles = nullptr;
  int32_t tile_capacity = 0;
  int32_t heads = 0;
  int32_t window = -1;  // -1: global; else keys with |i - j| <= window
  float scale = 0.125f;
  bool simt = false;  // true: the plain fp32 SIMT kernel (reference/fallback); false: tensor cores
  // Optional RoPE fused into the q/k loads (tensor-core kernel only): position = token - row start,
  // clamped to table_len - 1; same fp32 arithmetic and rounding as launch_rope (rope.cuh).
  const float* rope_cos = nullptr;  // [table_len, 32]
  const float* rope_sin = nullptr;
  int32_t rope_len = 0;
  // With RoPE tables: true = the k part of qkv is already rotated (launch_rope with k_only, once
  // per layer); only q is rotated in the kernel. Bitwise the same result as the fused K rotation.
  bool k_rotated = false;
  // With K rotated in the kernel: send the table rows of the block's positions to L2 before the PDL
  // wait. Only where the launch is PDL-chained (the small buckets): without PDL nothing overlaps the
  // prefetches, and at 512 tokens they cost 0.016 ms a forward (docs/benchmarks/cuda.md item 106).
  bool prefetch_rope = false;
  // Queries per tile of the tile table (attention_query_tile, bucket.h): 64 (default); 16 or 32 with
  // the tensor-core kernel (small buckets), which runs the 64-query kernel on the tile's first rows.
  int32_t query_tile = 64;
  // Key groups per block (tensor-core kernel, exp2 softmax; else 1): 2 or 4 groups
  // of 4 warps each take a share of the key tiles and are merged at the end — for grids that do not
  // fill the GPU (attention_key_split, bucket.h). Results differ from 1 by rounding only.
  int32_t key_split = 1;
  // A row slot whose queries get a zero output without attending (-1: none): the bucket's padding
  // tail row. Its tokens feed no answer, and its blocks then cost about what an unused tile's do —
  // a real tail tile held a whole SM for microseconds where the grid is just over one wave (1×464,
  // 1×500 with a key split of 4, docs/benchmarks/cuda.md).
  int32_t zero_row = -1;
  // Tensor-core kernel on sm_90a: the q.K^T and P.V products as warpgroup MMAs (wgmma) instead of
  // mma.sync (attention_wgmma_supported; either query tile, any key split). Same tiles, masks and
  // softmax; results differ from mma.sync by the products' summation order and by probabilities
  // below 2^-126 of the row maximum flushing to 0.
  bool wgmma = false;
  // The wgmma form (64-query tiles, no key split, K not rotated in the kernel) compiled for five
  // blocks per SM instead of four (102 registers instead of 128, the whole shared-memory
  // carveout): more blocks in flight to cover each block's blocking q load, for grids of several
  // waves (docs/benchmarks/cuda.md item 42). The same arithmetic: the same bits.
  bool five_blocks = false;
  // Pads each block's dynamic shared memory past half the SM's, so that one block runs per SM: for
  // grids with more blocks than SMs whose working blocks (the rest of the tile table exits at once)
  // fit on the SMs one each, which the block scheduler would otherwise run two to an SM on part of
  // the GPU (docs/benchmarks/cuda.md item 140). The same arithmetic: the same bits.
  bool one_block_per_sm = false;
};
// Whether p may set five_blocks: the wgmma form with 64-query tiles, no key split, and K not
// rotated in the kernel (the one form compiled for five blocks per SM).
template <class T>
bool attention_five_blocks_form(const AttentionParams<T>& p) {
  return p.wgmma && p.key_split == 1 && p.query_tile == 64 && (p.rope_cos == nullptr || p.k_rotated);
}
// Whether AttentionParams::wgmma may be set: the sm_90a kernels run on this process's GPU and the
// softmax is in the default exp2 form (LAYA_CUDA_ATTN_EXP2 unset or not 0).
bool attention_wgmma_supported();
template <class T>
void launch_attention(const AttentionParams<T>& p, cudaStream_t stream);

}  // namespace laya::cuda
