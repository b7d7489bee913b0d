// The GEMM single-CTA-cluster rule (cluster_rule.h): which (M, N, K) it covers, its spec's parser.
#include <gtest/gtest.h>

#include "backends/cuda/cluster_rule.h"

namespace laya::cuda {
namespace {

TEST(CudaClusterRule, RangesCoverTheirRowsAndShapesOnly) {
  const SingleCtaClusterRule none{}, rule{{{1, 64, {}}, {129, 768, {{5248, 1024}, {1024, 1024}}}, {769, 1535, {}}}};
  for (int32_t m : {1, 64, 200, 769, 1535}) EXPECT_FALSE(none.contains(m, 1024, 1024)) << m;
  for (int32_t m : {1, 64, 769, 1024, 1535})  // every shape
    for (auto [n, k] : {std::pair{3072, 1024}, std::pair{1024, 2624}, std::pair{5248, 1024}})
      EXPECT_TRUE(rule.contains(m, n, k)) << m << " " << n << "x" << k;
  for (int32_t m : {129, 512, 768}) {  // the listed shapes only
    EXPECT_TRUE(rule.contains(m, 5248, 1024)) << m;
    EXPECT_TRUE(rule.contains(m, 1024, 1024)) << m;
    EXPECT_FALSE(rule.contains(m, 3072, 1024)) << m;
    EXPECT_FALSE(rule.contains(m, 1024, 2624)) << m;
    EXPECT_FALSE(rule.contains(m, 1024, 5248)) << m;  // N and K swapped
  }
  for (int32_t m : {65, 128, 1536, 8192}) EXPECT_FALSE(rule.contains(m, 1024, 1024)) << m;
}

// The engine's defaults: english dims (d = 1,024, inter 2,624) as measured in items 123, 126 and 153;
// multilingual (d = 768, inter 1,152) without the QKV / MLP input GEMMs at 257-288, 321-384 and
// 449-512 rows (items 151 and 153).
TEST(CudaClusterRule, DefaultsFollowTheCheckpointsDims) {
  const SingleCtaClusterRule en = default_single_cta_cluster_rule(1024, 2624);
  EXPECT_EQ(en.to_string(),  // the rule session 30's call 4 ran (its engine's start-up line)
            "1-64;129-144:5248x1024+1024x1024;145-160:5248x1024+1024x1024+1024x2624;161-176:5248x1024;"
            "177-192:5248x1024+3072x1024;193-224:5248x1024+1024x1024;225-240:5248x1024+1024x1024+1024x2624;"
            "241-288:5248x1024+1024x1024;289-320:5248x1024+1024x1024+3072x1024+1024x2624;321-352:5248x1024;"
            "353-384:5248x1024+1024x1024;385-448:5248x1024+1024x1024+3072x1024+1024x2624;"
            "449-512:5248x1024+1024x1024;513-576:5248x1024+1024x1024+3072x1024;577-640:5248x1024+1024x1024;"
            "641-704:5248x1024+1024x1024+1024x2624;705-768:5248x1024+1024x1024;769-1535");
  EXPECT_EQ(SingleCtaClusterRule::parse(en.to_string()), en);  // a spec the override reads back
  for (int32_t m = 1; m <= 2048; ++m) {
    const bool small = m <= 64, mid = m >= 129 && m <= 768, large = m >= 769 && m <= 1535;
    EXPECT_EQ(en.contains(m, 5248, 1024), small || mid || large) << m;  // MLP input GEMM
    EXPECT_EQ(en.contains(m, 4096, 1024), small || large) << m;         // a shape no range lists
  }
  // The measured buckets (item 153): each GEMM with or without clusters as it ran faster.
  for (int32_t m : {144, 160, 208, 224, 240, 256, 288, 320, 384, 416, 448, 480, 512, 576, 640, 704, 768})
    EXPECT_TRUE(en.contains(m, 1024, 1024)) << m;
  for (int32_t m : {176, 192, 336, 352}) EXPECT_FALSE(en.contains(m, 1024, 1024)) << m;
  for (int32_t m : {192, 320, 416, 448, 576}) EXPECT_TRUE(en.contains(m, 3072, 1024)) << m;
  for (int32_t m : {144, 160, 176, 240, 256, 288, 352, 384, 480, 512, 640, 704, 768})
    EXPECT_FALSE(en.contains(m, 3072, 1024)) << m;
  for (int32_t m : {160, 240, 320, 416, 448, 704}) EXPECT_TRUE(en.contains(m, 1024, 2624)) << m;
  for (int32_t m : {144, 176, 192, 256, 288, 352, 384, 480, 512, 576, 640, 768})
    EXPECT_FALSE(en.contains(m, 1024, 2624)) << m;
  const SingleCtaClusterRule ml = default_single_cta_cluster_rule(768, 1152);
  EXPECT_EQ(ml.to_string(),
            "1-64;129-256:2304x768+768x768;257-288:768x768;289-320:2304x768+768x768;321-384:768x768;"
            "385-448:2304x768+768x768;449-512:768x768;513-768:2304x768+768x768;769-1535");  // session 30's call 5 spec
  for (int32_t m : {129, 256, 320, 416, 448, 513, 768}) EXPECT_TRUE(ml.contains(m, 2304, 768)) << m;
  for (int32_t m : {257, 288, 384, 480, 512}) EXPECT_FALSE(ml.contains(m, 2304, 768)) << m;
  for (int32_t m = 129; m <= 768; ++m) EXPECT_FALSE(ml.contains(m, 768, 1152)) << m;  // MLP output: clustered
  for (int32_t m : {129, 384, 512, 768}) EXPECT_TRUE(ml.contains(m, 768, 768)) << m;
  for (int32_t m : {1, 64, 769, 1535}) EXPECT_TRUE(ml.contains(m, 2304, 768)) << m;
  EXPECT_EQ(SingleCtaClusterRule::parse(ml.to_string()), ml);  // a spec the override reads back
}

TEST(CudaClusterRule, ParsesItsSpecAndRejectsMalformedOnes) {
  const std::string spec = "1-64;129-768:5248x1024+1024x1024;769-1535";
  const auto rule = SingleCtaClusterRule::parse(spec);
  ASSERT_TRUE(rule.has_value());
  const SingleCtaClusterRule want{{{1, 64, {}}, {129, 768, {{5248, 1024}, {1024, 1024}}}, {769, 1535, {}}}};
  EXPECT_EQ(*rule, want);
  EXPECT_EQ(rule->to_string(), spec);
  for (const char* empty : {"", "none"}) {
    const auto r = SingleCtaClusterRule::parse(empty);
    ASSERT_TRUE(r.has_value()) << empty;
    EXPECT_TRUE(r->ranges.empty()) << empty;
    EXPECT_EQ(r->to_string(), "none");
  }
  for (const char* bad : {"64", "0-64", "64-1", "1-64;", "1-64,2-3", "1-64:", "1-64:1024", "1-64:1024x",
                          "1-64:1024x1024+", "1-64:0x1", "-1-64", "1-64 ", "a-b", "1-99999999999"})
    EXPECT_FALSE(SingleCtaClusterRule::parse(bad).has_value()) << bad;
}

}  // namespace
}  // namespace laya::cuda
