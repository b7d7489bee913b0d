// Attention fused into the attention-output GEMM, for buckets of at most 64 tokens (sm_90a: TMA +
// wgmma). out[s][t][c] = sum over the heads h of split s (kAttnOutHeadsPerCta each, in order) of
// attention(h)[t] . Wo[c, 64 h .. 64 h + 63] in fp32 — the partials the add+LN after it sums
// (AddLnParams::add_parts), with attention(h)[t] rounded to T as launch_attention writes it.
//
// Why: in a small bucket every kernel of the chain costs ≈ 1.5–2 µs beyond its work (its start
// under PDL, its cold code, its input's round trip; docs/cuda.md, "What the small shapes need
// next"), and attention is one kernel a layer. At <= 64 tokens a row's keys lie in one 64-key tile,
// so each CTA of the output GEMM recomputes the attention of the heads of its K range (the K range
// of a split is kAttnOutHeadsPerCta heads, one per consumer warpgroup, in parallel) instead of
// reading attention's output: ≈ 4 heads x 2 x 64 x 64 x 64 x 2 FLOP and 96 KB of q, K, V from L2 a
// CTA. The arithmetic is attention's wgmma form term for term (one key tile from key 0, each query
// masked to its row's keys), so for a bucket of one row starting at token 0 the outputs are bitwise
// those of launch_attention followed by the small GEMM's partials form over the same splits
// (kernel test); with several rows the keys of a row sit at other places of the tile, and the
// softmax's sums may differ in the last bit.
//
// Requires q and k already rotated (the QKV GEMM's rope form) and, for local layers, a window that
// covers the bucket (window >= m - 1: every key of a row is in the window).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

constexpr int32_t kAttnOutHeadsPerCta = 4;  // one consumer warpgroup per head
constexpr int32_t kAttnOutMaxTokens = 64;   // one key tile

template <class T>
struct AttnOutGemmArgs {
  const T* qkv = nullptr;             // [m, 3 * heads * 64]: q | k | v, q and k rotated
  const T* wo = nullptr;              // [d, d] row-major, d = heads * 64
  float* out = nullptr;               // [heads / kAttnOutHeadsPerCta, m, d] fp32 partials
  const int32_t* tok_row = nullptr;   // [m] the row slot of each token (staging; read before the PDL wait)
  const int32_t* row_offsets = nullptr;  // [row slots + 1]
  int32_t m = 0, heads = 0;
  int32_t zero_row = -1;  // a row slot whose tokens get a zero attention output (AttentionParams::zero_row)
  float scale = 0.125f;
};

// The partials the kernel writes (splits of the output GEMM's K): heads / kAttnOutHeadsPerCta.
inline int32_t attn_out_gemm_parts(int32_t heads) { return heads / kAttnOutHeadsPerCta; }

// Whether the fused kernel runs on this GPU (sm_90a, TMA) and takes the shape: 1 <= m <= 64, heads a
// multiple of kAttnOutHeadsPerCta, window -1 (global) or >= m - 1.
bool attn_out_gemm_supported(int32_t m, int32_t heads, int32_t window);

template <class T>
void launch_attn_out_gemm(const AttnOutGemmArgs<T>& a, cudaStream_t stream);

}  // namespace laya::cuda
