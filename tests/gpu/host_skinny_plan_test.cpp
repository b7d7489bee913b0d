// The skinny GEMM's tiling and K-split plan (host-side, runs without a GPU).
#include <gtest/gtest.h>

#include <cstdlib>

#include "backends/cuda/skinny_plan.h"

namespace laya::cuda {
namespace {

TEST(CudaSkinnyPlan, EnglishShapesAtFortyEightTokens) {
  // QKV: 48 column tiles, 5 splits of 16 K chunks (240 CTAs: one wave of a 264 target).
  SkinnyPlan qkv = plan_skinny(48, 3072, 1024, false, 264);
  EXPECT_EQ(qkv.m_tiles, 1);
  EXPECT_EQ(qkv.m_frags, 3);
  EXPECT_EQ(qkv.n_tiles, 48);
  EXPECT_EQ(qkv.k_chunks, 16);
  EXPECT_EQ(qkv.splits, 5);
  // MLP out (K = 2624 = 41 chunks): 16 tiles, capped at the cluster limit of 8.
  SkinnyPlan out = plan_skinny(48, 1024, 2624, false, 264);
  EXPECT_EQ(out.n_tiles, 16);
  EXPECT_EQ(out.k_chunks, 41);
  EXPECT_EQ(out.splits, kSkinnyMaxSplits);
  // GeGLU: 32 outputs per tile (64 weight rows: 32 input + 32 gate).
  SkinnyPlan up = plan_skinny(48, 2624, 1024, true, 264);
  EXPECT_EQ(up.n_tiles, 82);
  EXPECT_EQ(up.splits, 3);
}

TEST(CudaSkinnyPlan, EdgeShapes) {
  SkinnyPlan one = plan_skinny(1, 8, 8, false, 264);  // one row, one tile, one chunk: no split
  EXPECT_EQ(one.m_frags, 1);
  EXPECT_EQ(one.n_tiles, 1);
  EXPECT_EQ(one.k_chunks, 1);
  EXPECT_EQ(one.splits, 1);
  SkinnyPlan tail = plan_skinny(17, 1000, 136, false, 264);  // partial column tile, K tail chunk
  EXPECT_EQ(tail.m_frags, 2);
  EXPECT_EQ(tail.n_tiles, 16);
  EXPECT_EQ(tail.k_chunks, 3);
  EXPECT_EQ(tail.splits, 3);
  SkinnyPlan tall = plan_skinny(130, 256, 512, false, 264);  // over 64 rows: 64-row tiles, 4 fragments
  EXPECT_EQ(tall.m_tiles, 3);
  EXPECT_EQ(tall.m_frags, 4);
  EXPECT_EQ(tall.n_tiles, 4);
  EXPECT_EQ(tall.splits, 8);
  SkinnyPlan none = plan_skinny(0, 64, 64, false, 264);
  EXPECT_EQ(none.splits, 0);
  // Every plan's K split gives each CTA at least one chunk.
  for (int32_t k = 8; k <= 4096; k += 8)
    for (int32_t target : {1, 64, 264, 10000}) {
      const SkinnyPlan p = plan_skinny(48, 1024, k, false, target);
      ASSERT_GE(p.splits, 1);
      ASSERT_LE(p.splits, std::min(kSkinnyMaxSplits, p.k_chunks)) << k;
      if (p.splits > 1) {
        ASSERT_LE(p.splits * p.n_tiles * p.m_tiles, target) << k;  // one wave
      }
    }
}

TEST(CudaSkinnyPlan, ClustersStayWithinOneResidentWave) {
  // As measured for 5-CTA clusters on the H200: 47 resident; 48 column tiles need 4-CTA clusters.
  int32_t max_clusters[kSkinnyMaxSplits + 1] = {0, 396, 132, 88, 66, 47, 44, 33, 30};
  const SkinnyPlan qkv = plan_skinny(48, 3072, 1024, false, 264, max_clusters);
  EXPECT_EQ(qkv.splits, 4);
  const SkinnyPlan out = plan_skinny(48, 1024, 2624, false, 396, max_clusters);  // 16 clusters of 8 fit
  EXPECT_EQ(out.splits, 8);
  int32_t none[kSkinnyMaxSplits + 1] = {};
  EXPECT_EQ(plan_skinny(48, 1024, 2624, false, 396, none).splits, 1);
}

TEST(CudaSkinnyPlan, MaxRowsFromTheEnvironment) {
  unsetenv("LAYA_CUDA_SKINNY_MAX_M");
  EXPECT_EQ(skinny_max_m_from_env(), kSkinnyDefaultMaxM);
  setenv("LAYA_CUDA_SKINNY_MAX_M", "0", 1);
  EXPECT_EQ(skinny_max_m_from_env(), 0);
  setenv("LAYA_CUDA_SKINNY_MAX_M", "256", 1);
  EXPECT_EQ(skinny_max_m_from_env(), 256);
  setenv("LAYA_CUDA_SKINNY_MAX_M", "-3", 1);
  EXPECT_EQ(skinny_max_m_from_env(), 0);
  unsetenv("LAYA_CUDA_SKINNY_MAX_M");
}

}  // namespace
}  // namespace laya::cuda
