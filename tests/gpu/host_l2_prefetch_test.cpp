// The L2 prefetch plans' bookkeeping (l2_prefetch.cuh; host-side, runs without a GPU).
#include <gtest/gtest.h>

#include <cstdint>

#include "backends/cuda/l2_prefetch.cuh"

namespace laya::cuda {
namespace {

const void* at(uintptr_t a) { return reinterpret_cast<const void*>(a); }

TEST(CudaL2Prefetch, SpansNumberTheirLinesAsOneSequence) {
  L2Prefetch p;
  EXPECT_EQ(p.lines(), 0);
  EXPECT_TRUE(l2_prefetch_valid(p)) << "an empty plan sends nothing";
  ASSERT_TRUE(p.add(at(4096), 3072, 2, 2048));  // a W's first two k-tiles
  ASSERT_TRUE(p.add_bytes(at(1 << 20), 4096));  // a LayerNorm weight: 32 lines
  ASSERT_TRUE(p.add_bytes(at(2 << 20), 1));     // a part line counts as one
  EXPECT_EQ(p.count, 3);
  EXPECT_EQ(p.end[0], 6144);
  EXPECT_EQ(p.end[1], 6176);
  EXPECT_EQ(p.lines(), 6177);
  EXPECT_TRUE(l2_prefetch_valid(p));
}

TEST(CudaL2Prefetch, EmptySpansAreLeftOutAndAFullPlanRefusesMore) {
  L2Prefetch p;
  EXPECT_TRUE(p.add(nullptr, 4, 1, 128)) << "a null pointer: nothing to send";
  EXPECT_TRUE(p.add(at(4096), 0, 1, 128));
  EXPECT_TRUE(p.add_bytes(at(4096), 0));
  EXPECT_EQ(p.count, 0);
  for (int32_t i = 0; i < kMaxL2Spans; ++i) ASSERT_TRUE(p.add_bytes(at(4096 * (i + 1)), 128));
  EXPECT_FALSE(p.add_bytes(at(1 << 20), 128)) << "a ninth span";
  EXPECT_EQ(p.count, kMaxL2Spans);
  EXPECT_EQ(p.lines(), kMaxL2Spans);
  EXPECT_TRUE(l2_prefetch_valid(p));
}

TEST(CudaL2Prefetch, APlanBeyondItsLineBoundIsRefusedUnchanged) {
  L2Prefetch p;
  ASSERT_TRUE(p.add(at(4096), kMaxL2Lines / 2, 1, 128));
  EXPECT_FALSE(p.add(at(4096), kMaxL2Lines / 2 + 1, 1, 128)) << "one line past the bound";
  EXPECT_FALSE(p.add(at(4096), 1 << 20, 1 << 20, int64_t{1} << 27)) << "rows x lines past int32";
  EXPECT_FALSE(p.add_bytes(at(4096), int64_t{1} << 40));
  EXPECT_EQ(p.count, 1);
  EXPECT_EQ(p.lines(), kMaxL2Lines / 2);
  ASSERT_TRUE(p.add(at(4096), kMaxL2Lines / 2, 1, 128)) << "exactly the bound";
  EXPECT_TRUE(l2_prefetch_valid(p));
}

TEST(CudaL2Prefetch, MalformedPlansAreInvalid) {
  L2Prefetch p;
  ASSERT_TRUE(p.add(at(4096), 4, 2, 256));
  EXPECT_TRUE(l2_prefetch_valid(p));
  L2Prefetch overlap = p;
  overlap.spans[0].stride = 255;  // two lines a row, rows less than two lines apart
  EXPECT_FALSE(l2_prefetch_valid(overlap));
  L2Prefetch miscounted = p;
  miscounted.end[0] = 7;
  EXPECT_FALSE(l2_prefetch_valid(miscounted));
  L2Prefetch no_memory = p;
  no_memory.spans[0].ptr = nullptr;
  EXPECT_FALSE(l2_prefetch_valid(no_memory));
  L2Prefetch too_many = p;
  too_many.count = kMaxL2Spans + 1;
  EXPECT_FALSE(l2_prefetch_valid(too_many));
  L2Prefetch negative = p;
  negative.count = -1;
  EXPECT_FALSE(l2_prefetch_valid(negative));
}

}  // namespace
}  // namespace laya::cuda
