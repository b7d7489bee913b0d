#include "backends/cuda/skinny_plan.h"

#include <algorithm>

#include "backends/cuda/env.h"

namespace laya::cuda {

SkinnyPlan plan_skinny(int32_t m, int32_t n_out, int32_t k, bool geglu, int32_t target_ctas,
                       const int32_t* max_clusters) {
  SkinnyPlan p;
  if (m <= 0 || n_out <= 0 || k <= 0) return p;
  p.m_tiles = (m + kSkinnyTile - 1) / kSkinnyTile;
  p.m_frags = p.m_tiles > 1 ? 4 : (m + 15) / 16;
  const int32_t cols_per_tile = geglu ? kSkinnyTile / 2 : kSkinnyTile;
  p.n_tiles = (n_out + cols_per_tile - 1) / cols_per_tile;
  p.k_chunks = (k + kSkinnyTile - 1) / kSkinnyTile;
  const int32_t tiles = p.m_tiles * p.n_tiles;
  // As many splits as fit in one wave of target_ctas (more would queue a second wave).
  const int32_t fit = std::max(target_ctas, 1) / tiles;
  p.splits = std::clamp(fit, 1, std::min(kSkinnyMaxSplits, p.k_chunks));
  // A cluster that does not fit beside the others runs as a second wave: fewer, smaller clusters.
  if (max_clusters != nullptr)
    while (p.splits > 1 && tiles > max_clusters[p.splits]) --p.splits;
  return p;
}

int32_t skinny_max_m_from_env() { return std::max(0, env_int("LAYA_CUDA_SKINNY_MAX_M", kSkinnyDefaultMaxM)); }

}  // namespace laya::cuda
