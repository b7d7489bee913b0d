// Tile geometry the host-side rules need: the attention kernel's query tile (queries per block),
// shared by the host-side tile table, and the fused GeGLU GEMM's output tile.
#pragma once

#include <cstdint>

namespace laya::cuda {
constexpr int32_t kAttnTile = 64;
// Buckets of at most kAttnTileSmallMaxTokens tokens split their rows into query tiles of
// kAttnTileSmall queries (LAYA_CUDA_ATTN_SMALL_TILE: 16, 32 or 64): the 64-query kernel then runs
// on its first kAttnTileSmall query rows, and a row's queries spread over twice the blocks.
// Measured on the H200 (docs/benchmarks/cuda.md item 88): 1x48 -0.008 ms, 1x64 -0.012, 1x96
// -0.008, 1x128 -0.012, buckets of several short rows +-0.003; 16 queries gained as much up to 64
// tokens but lost 0.014 at 96-128.
constexpr int32_t kAttnTileSmall = 32;
constexpr int32_t kAttnTileSmallMaxTokens = 128;
// The fused GeGLU GEMM's tile (geglu_gemm.cu): 256 rows x 64 GeGLU outputs, one persistent CTA per
// SM taking tiles in rounds (geglu_gemm_fills_its_rounds, bucket.h).
constexpr int32_t kGegluGemmTileRows = 256;
constexpr int32_t kGegluGemmTileOutputs = 64;
}  // namespace laya::cuda
