// The attention kernel's query tile (queries per block), shared by the host-side tile table.
#pragma once

#include <cstdint>

namespace laya::cuda {
constexpr int32_t kAttnTile = 64;
// Experiment (LAYA_CUDA_ATTN_TILE128=1, off by default): 128-query tiles (8 warps) for buckets
// over kAttnTileLargeFrom tokens, halving the K/V tile reloads per query.
constexpr int32_t kAttnTileLarge = 128;
constexpr int32_t kAttnTileLargeFrom = 256;
}  // namespace laya::cuda
