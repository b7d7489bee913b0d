// Host-side shape plan of the skinny GEMM (skinny_gemm.cuh): how a small-M GEMM is cut into
// 64x64 output tiles and K splits. Plain C++, tested without a GPU.
#pragma once

#include <cstdint>

namespace laya::cuda {

constexpr int32_t kSkinnyTile = 64;       // rows (M) and columns (N) of an output tile; K per stage
constexpr int32_t kSkinnyMaxSplits = 8;   // K splits = CTAs of one thread-block cluster (portable size)
constexpr int32_t kSkinnyDefaultMaxM = 0;  // off: slower than cuBLASLt on the H200 (docs/benchmarks/cuda.md)

struct SkinnyPlan {
  int32_t m_tiles = 0;       // grid.z
  int32_t n_tiles = 0;       // grid.x
  int32_t splits = 0;        // grid.y = cluster size along y
  int32_t m_frags = 0;       // 16-row MMA fragments per tile: 1..4 (M <= 64 uses only what it needs)
  int32_t k_chunks = 0;      // 64-wide K chunks in all
};

// `n_out` output columns (GeGLU: the inter size; each tile then covers 32 outputs = 64 weight rows).
// Splits K so that the grid has at most `target_ctas` CTAs (one wave; at least one split), at most
// kSkinnyMaxSplits and at most one split per K chunk; with `max_clusters` (resident clusters per
// cluster size, indices 1..kSkinnyMaxSplits), also no more clusters than fit at once.
SkinnyPlan plan_skinny(int32_t m, int32_t n_out, int32_t k, bool geglu, int32_t target_ctas,
                       const int32_t* max_clusters = nullptr);

// The largest token count routed to the skinny GEMM: LAYA_CUDA_SKINNY_MAX_M if set (0 = never),
// else kSkinnyDefaultMaxM.
int32_t skinny_max_m_from_env();

}  // namespace laya::cuda
