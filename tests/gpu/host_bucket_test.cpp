// Bucket choice and shape parsing of the CUDA engine (host-side, runs without a GPU).
#include <gtest/gtest.h>

#include "backends/cuda/bucket.h"
#include "laya/errors.h"

namespace laya::cuda {
namespace {

TEST(CudaBucket, RoundUpBoundedWastesAtMostAnEighthAboveTheMinimumStep) {
  for (int32_t n = 1; n <= 20000; ++n) {
    const int32_t r = round_up_bounded(n, 16);
    ASSERT_GE(r, n);
    ASSERT_EQ(r % 16, 0) << n;
    if (n >= 128) {
      ASSERT_LE(static_cast<double>(r - n), static_cast<double>(n) / 8.0) << n;
    }
  }
  EXPECT_EQ(round_up_bounded(48, 16), 48);
  EXPECT_EQ(round_up_bounded(464, 16), 480);
  EXPECT_EQ(round_up_bounded(512, 16), 512);
  EXPECT_EQ(round_up_bounded(8192, 16), 8192);
  EXPECT_EQ(round_up_bounded(7, 1), 7);
}

TEST(CudaBucket, ChooseBucketPadsEachDimensionAndClampsToLimits) {
  BucketLimits lim{8192, 16, 2048};
  const Bucket b = choose_bucket(48, 1, 3, lim);
  EXPECT_EQ(b, (Bucket{48, 1, 8}));
  const Bucket c = choose_bucket(1856, 4, 12, lim);
  EXPECT_EQ(c.tokens, 1920);
  EXPECT_EQ(c.rows, 4);
  EXPECT_EQ(c.markers, 16);
  const Bucket full = choose_bucket(8192, 16, 2048, lim);
  EXPECT_EQ(full, (Bucket{8192, 16, 2048}));
  const Bucket near = choose_bucket(8100, 15, 2000, lim);
  EXPECT_EQ(near, (Bucket{8192, 15, 2048}));
  EXPECT_TRUE(near.fits(8100, 15, 2000));
  EXPECT_EQ(near.row_slots(), 16);
}

TEST(CudaBucket, OversizedBatchesAreRejectedNamingTheDimension) {
  BucketLimits lim{1024, 4, 32};
  try {
    choose_bucket(1025, 1, 1, lim);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::too_large);
    EXPECT_NE(std::string(e.what()).find("tokens"), std::string::npos);
  }
  EXPECT_THROW(choose_bucket(10, 5, 1, lim), Error);
  EXPECT_THROW(choose_bucket(10, 1, 33, lim), Error);
  EXPECT_THROW(choose_bucket(0, 1, 1, lim), Error);
}

TEST(CudaBucket, TileCapacityCoversEveryRowSplit) {
  // Worst case: every row slot holds a length that wastes a partial tile.
  for (int32_t rows = 1; rows <= 8; ++rows) {
    const Bucket b{rows * 65 + 16, rows, 8};
    const int32_t q = attention_query_tile(b);  // 32 up to 128 tokens, else 64
    int32_t need = 0;
    for (int32_t r = 0; r < rows; ++r) need += (65 + q - 1) / q;  // 65 tokens -> 2 tiles of 64
    need += 1;                                                     // tail of 16 tokens
    EXPECT_GE(attention_tile_capacity(b), need) << rows;
  }
}

// H200: 132 SMs; english: 16 heads, rows up to 512 (typed-decisions: 1024).
TEST(CudaBucket, KeySplitFillsOneWaveOnlyWhereRowsHaveKeyTilesToShare) {
  const BucketLimits lim{8192, 64, 4096};
  auto split = [&](int32_t tokens, int32_t rows, int32_t max_split = 4, int32_t max_row_len = 512) {
    return attention_key_split(choose_bucket(tokens, rows, 4, lim), 16, 132, max_row_len, max_split);
  };
  EXPECT_EQ(split(512, 1), 4);    // 8 tiles x 16 heads = 128 blocks: 4 groups of 4 warps each fill one wave
  EXPECT_EQ(split(464, 1), 4);
  EXPECT_EQ(split(1024, 2), 2);   // 256 blocks
  EXPECT_EQ(split(1856, 4), 1);   // 4x464: 480 blocks already fill the GPU
  EXPECT_EQ(split(8192, 16), 1);
  EXPECT_EQ(split(48, 1), 1);     // one key tile per row: nothing to share
  EXPECT_EQ(split(256, 4), 1);    // 4x64: rows of one key tile on average
  EXPECT_EQ(split(120, 1), 2);    // two key tiles at most
  EXPECT_EQ(split(512, 1, 2), 2); // capped by max_split
  EXPECT_EQ(split(512, 1, 1), 1);
  EXPECT_EQ(split(512, 1, 4, 64), 1);  // rows of at most 64 tokens
  EXPECT_EQ(split(256, 1), 2);    // 4 key tiles: two groups of two, not four of one
  EXPECT_EQ(split(512, 2), 2);    // 2x256
  EXPECT_EQ(split(384, 1), 2);    // 6 key tiles
  EXPECT_EQ(split(448, 1), 2);    // 7
  EXPECT_EQ(split(192, 1), 2);    // 3
}

// K rotated once by the pass: every layer above 512 tokens; global layers also where the rows
// average more than 256 tokens (item 216's defaults), never by the global rule when it is 0.
TEST(CudaBucket, KRotatedOnceForLongRowsInGlobalLayers) {
  const BucketLimits lim{8192, 64, 4096};
  auto once = [&](int32_t tokens, int32_t rows, bool global, int32_t row_above = 256) {
    return rotates_k_once(choose_bucket(tokens, rows, 4, lim), global, 512, row_above);
  };
  for (bool global : {false, true}) {
    EXPECT_TRUE(once(1856, 4, global));  // 4x464: every layer
    EXPECT_TRUE(once(1024, 2, global));  // 2x512
    EXPECT_FALSE(once(512, 4, global));  // 4x128: rows of 128
    EXPECT_FALSE(once(512, 2, global));  // 2x256: rows of 256, not more
    EXPECT_FALSE(once(160, 1, global));
    EXPECT_FALSE(once(256, 1, global));
  }
  EXPECT_TRUE(once(512, 1, true));
  EXPECT_TRUE(once(464, 1, true));
  EXPECT_TRUE(once(300, 1, true));   // a bucket of 320 tokens
  EXPECT_FALSE(once(512, 1, false));  // windowed layers: in attention's loads
  EXPECT_FALSE(once(512, 1, true, 0));  // the global rule off
  EXPECT_FALSE(once(384, 1, true, 384));
}

// The fused GeGLU GEMM's 256 x 64 tiles in rounds of 132 SMs (H200): one full round and a short
// second one send the bucket to cuBLASLt + the GeGLU pass.
TEST(CudaBucket, FusedGegluGemmAvoidsAShortSecondRound) {
  // multilingual inter 1,152: 18 output tiles a 256-row block
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(1280, 1152, 132, 25));   // 90 tiles: one partial round
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(1536, 1152, 132, 25));   // 108
  EXPECT_FALSE(geglu_gemm_fills_its_rounds(1920, 1152, 132, 25));  // 144 = 132 + 12
  EXPECT_FALSE(geglu_gemm_fills_its_rounds(2048, 1152, 132, 25));  // the same 8 row blocks
  EXPECT_FALSE(geglu_gemm_fills_its_rounds(2304, 1152, 132, 25));  // 162 = 132 + 30 (22.7 %)
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(2560, 1152, 132, 25));   // 180 = 132 + 48 (36 %)
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(4096, 1152, 132, 25));   // 288 = 264 + 24: after two rounds
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(8192, 1152, 132, 25));   // 576
  // english inter 2,624: 41 output tiles a row block — never one round and a short one from 1,280
  for (int32_t t = 1280; t <= 8192; t += 128) EXPECT_TRUE(geglu_gemm_fills_its_rounds(t, 2624, 132, 25)) << t;
  EXPECT_FALSE(geglu_gemm_fills_its_rounds(1024, 2624, 132, 25));  // 164 = 132 + 32 (24 %)
  // whole rounds, the threshold itself, and 0 = always
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(256 * 9, 1024, 144, 25));   // 9 x 16 = 144: exactly one round
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(256 * 9, 1024, 132, 9));    // 144 = 132 + 12: 9.09 %
  EXPECT_FALSE(geglu_gemm_fills_its_rounds(256 * 9, 1024, 132, 10));
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(256 * 9, 1024, 132, 0));
  EXPECT_TRUE(geglu_gemm_fills_its_rounds(256 * 9, 1024, 0, 25));
}

TEST(CudaBucket, ParseShapes) {
  const auto s = parse_shapes("1x48, 4x64,16x512");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0], (std::pair<int32_t, int32_t>{1, 48}));
  EXPECT_EQ(s[2], (std::pair<int32_t, int32_t>{16, 512}));
  EXPECT_TRUE(parse_shapes("").empty());
  EXPECT_THROW(parse_shapes("4x"), Error);
  EXPECT_THROW(parse_shapes("ax4"), Error);
  EXPECT_THROW(parse_shapes("0x4"), Error);
  EXPECT_THROW(parse_shapes("4x4x4"), Error);
}

// The workspace's token limit: 16 rows of max_len (at least 1,024) unless a lower positive request;
// never below one row (nor 1,024), never above the default; negative refused.
TEST(CudaBucket, WorkspaceTokensFollowTheRequestDownToOneRow) {
  EXPECT_EQ(workspace_max_tokens(512, 0), 8192);    // english
  EXPECT_EQ(workspace_max_tokens(1024, 0), 16384);  // typed-decisions, multilingual
  EXPECT_EQ(workspace_max_tokens(128, 0), 2048);    // tiny
  EXPECT_EQ(workspace_max_tokens(16, 0), 1024);
  EXPECT_EQ(workspace_max_tokens(512, 16384), 8192);  // serve's default budget does not grow it
  EXPECT_EQ(workspace_max_tokens(1024, 16384), 16384);
  EXPECT_EQ(workspace_max_tokens(1024, 4096), 4096);
  EXPECT_EQ(workspace_max_tokens(1024, 5000), 5000);
  EXPECT_EQ(workspace_max_tokens(1024, 600), 1024);  // one full row
  EXPECT_EQ(workspace_max_tokens(2048, 1500), 2048);
  EXPECT_EQ(workspace_max_tokens(512, 1), 1024);
  EXPECT_EQ(workspace_max_tokens(128, 1500), 1500);
  EXPECT_EQ(workspace_max_tokens(512, int64_t{1} << 40), 8192);
  for (int64_t bad : {int64_t{-1}, int64_t{-4096}}) {
    try {
      (void)workspace_max_tokens(512, bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_request) << e.what();
    }
  }
}

// The warm-up's ladder: exactly the token counts choose_bucket produces for 1..max_tokens.
TEST(CudaBucket, TokenCountsAreEveryBucketSize) {
  for (int32_t max_tokens : {1024, 2048, 8192, 16384, 1000}) {
    const BucketLimits lim{max_tokens, 64, 4096};
    const std::vector<int32_t> counts = bucket_token_counts(lim);
    std::vector<int32_t> want;
    for (int32_t t = 1; t <= max_tokens; ++t) {
      const int32_t b = choose_bucket(t, 1, 1, lim).tokens;
      if (want.empty() || want.back() != b) want.push_back(b);
    }
    EXPECT_EQ(counts, want) << max_tokens;
  }
  const auto english = bucket_token_counts(BucketLimits{8192, 64, 4096});
  EXPECT_EQ(english.size(), 56u);
  EXPECT_EQ(english.front(), 16);
  EXPECT_EQ(english.back(), 8192);
}

}  // namespace
}  // namespace laya::cuda
