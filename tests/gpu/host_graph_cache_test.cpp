// Graph-cache bookkeeping (host-side, runs without a GPU): LRU order, count and byte eviction
// before allocation, exact budget, oversized and disabled shapes, admission at the Nth miss.
#include <gtest/gtest.h>

#include "backends/cuda/graph_cache.h"
#include "laya/errors.h"

namespace laya::cuda {
namespace {

Bucket B(int32_t t) { return Bucket{t, 1, 8}; }

// Applies a plan the way the backend does.
GraphCacheBook::Action admit(GraphCacheBook& book, const Bucket& b, int64_t bytes) {
  const auto plan = book.plan(b, bytes);
  if (plan.action == GraphCacheBook::Action::hit) book.touch(b);
  if (plan.action == GraphCacheBook::Action::defer) book.note_miss(b);
  if (plan.action == GraphCacheBook::Action::capture) {
    for (const auto& v : plan.evict) book.erase(v);
    book.insert(b, bytes);
  }
  return plan.action;
}

TEST(CudaGraphCache, CountBudgetEvictsLeastRecentlyUsedFirst) {
  GraphCacheBook book(2, 1 << 20);
  EXPECT_EQ(admit(book, B(16), 100), GraphCacheBook::Action::capture);
  EXPECT_EQ(admit(book, B(32), 100), GraphCacheBook::Action::capture);
  EXPECT_EQ(admit(book, B(16), 100), GraphCacheBook::Action::hit);  // 16 is now most recent
  const auto plan = book.plan(B(48), 100);
  ASSERT_EQ(plan.action, GraphCacheBook::Action::capture);
  ASSERT_EQ(plan.evict.size(), 1u);
  EXPECT_EQ(plan.evict[0], B(32));
  admit(book, B(48), 100);
  EXPECT_TRUE(book.contains(B(16)));   // survivor
  EXPECT_FALSE(book.contains(B(32)));
  EXPECT_EQ(book.lru_order(), (std::vector<Bucket>{B(16), B(48)}));
  EXPECT_EQ(book.size(), 2);
}

TEST(CudaGraphCache, ByteBudgetEvictsUntilTheNewGraphFitsExactly) {
  GraphCacheBook book(10, 300);
  admit(book, B(16), 100);
  admit(book, B(32), 100);
  admit(book, B(48), 100);  // exactly at budget: allowed
  EXPECT_EQ(book.bytes(), 300);
  EXPECT_EQ(book.size(), 3);
  const auto plan = book.plan(B(64), 150);
  ASSERT_EQ(plan.action, GraphCacheBook::Action::capture);
  EXPECT_EQ(plan.evict, (std::vector<Bucket>{B(16), B(32)}));
  admit(book, B(64), 150);
  EXPECT_EQ(book.bytes(), 250);
  EXPECT_EQ(book.lru_order(), (std::vector<Bucket>{B(48), B(64)}));
}

TEST(CudaGraphCache, OversizedShapeRunsEagerAndLeavesTheCacheAlone) {
  GraphCacheBook book(4, 300);
  admit(book, B(16), 100);
  const auto plan = book.plan(B(32), 301);
  EXPECT_EQ(plan.action, GraphCacheBook::Action::eager);
  EXPECT_TRUE(plan.evict.empty());
  EXPECT_EQ(book.size(), 1);
  EXPECT_EQ(book.plan(B(32), 300).action, GraphCacheBook::Action::capture);  // exact fit allowed
}

TEST(CudaGraphCache, BucketsAboveTheTokenBoundRunEager) {
  GraphCacheBook book(4, 1 << 20, 1, 64);
  EXPECT_EQ(admit(book, B(64), 100), GraphCacheBook::Action::capture);  // at the bound
  EXPECT_EQ(admit(book, B(80), 100), GraphCacheBook::Action::eager);
  EXPECT_EQ(admit(book, B(80), 100), GraphCacheBook::Action::eager);    // never admitted, never deferred
  EXPECT_EQ(book.lru_order(), (std::vector<Bucket>{B(64)}));
  EXPECT_EQ(GraphCacheBook(4, 1 << 20, 1, 0).plan(B(8192), 100).action, GraphCacheBook::Action::capture);  // 0: none
  EXPECT_THROW(GraphCacheBook(4, 1 << 20, 1, -1), Error);
}

TEST(CudaGraphCache, DisabledCacheAlwaysRunsEager) {
  GraphCacheBook zero_shapes(0, 1 << 20);
  GraphCacheBook zero_bytes(4, 0);
  EXPECT_FALSE(zero_shapes.enabled());
  EXPECT_FALSE(zero_bytes.enabled());
  EXPECT_EQ(zero_shapes.plan(B(16), 1).action, GraphCacheBook::Action::eager);
  EXPECT_EQ(zero_bytes.plan(B(16), 1).action, GraphCacheBook::Action::eager);
  EXPECT_THROW(GraphCacheBook(-1, 10), Error);
}

TEST(CudaGraphCache, FailedCaptureLeavesTheBookValid) {
  // The backend evicts, then the capture fails: nothing is inserted; a retry plans a capture again.
  GraphCacheBook book(1, 1000);
  admit(book, B(16), 100);
  const auto plan = book.plan(B(32), 100);
  ASSERT_EQ(plan.evict.size(), 1u);
  for (const auto& v : plan.evict) book.erase(v);
  EXPECT_EQ(book.size(), 0);
  EXPECT_EQ(book.bytes(), 0);
  EXPECT_EQ(book.plan(B(32), 100).action, GraphCacheBook::Action::capture);
  EXPECT_TRUE(book.plan(B(32), 100).evict.empty());
}

TEST(CudaGraphCache, AdmissionCapturesAShapeAtItsNthMissOnly) {
  GraphCacheBook book(2, 1 << 20, 3);
  admit(book, B(16), 100);
  admit(book, B(32), 100);
  EXPECT_EQ(book.size(), 0);  // nothing admitted yet: no eviction either
  EXPECT_EQ(admit(book, B(16), 100), GraphCacheBook::Action::defer);
  EXPECT_EQ(admit(book, B(16), 100), GraphCacheBook::Action::capture);  // the third miss
  EXPECT_EQ(admit(book, B(16), 100), GraphCacheBook::Action::hit);
  // A shape met once does not evict the recurring ones.
  admit(book, B(32), 100);
  EXPECT_EQ(admit(book, B(32), 100), GraphCacheBook::Action::capture);
  EXPECT_EQ(admit(book, B(48), 100), GraphCacheBook::Action::defer);
  EXPECT_EQ(book.lru_order(), (std::vector<Bucket>{B(16), B(32)}));
  // An evicted shape starts counting its misses again.
  admit(book, B(48), 100);
  ASSERT_EQ(admit(book, B(48), 100), GraphCacheBook::Action::capture);
  EXPECT_FALSE(book.contains(B(16)));
  EXPECT_EQ(admit(book, B(16), 100), GraphCacheBook::Action::defer);
  // Admission after 1 miss is the plain cache; a disabled or oversized shape is never deferred.
  EXPECT_EQ(GraphCacheBook(2, 100, 1).plan(B(16), 100).action, GraphCacheBook::Action::capture);
  EXPECT_EQ(GraphCacheBook(0, 100, 3).plan(B(16), 100).action, GraphCacheBook::Action::eager);
  EXPECT_EQ(GraphCacheBook(2, 100, 3).plan(B(16), 101).action, GraphCacheBook::Action::eager);
  EXPECT_THROW(GraphCacheBook(2, 100, 0), Error);
  EXPECT_THROW(GraphCacheBook(2, 100, GraphCacheBook::kMaxAdmitAfter + 1), Error);  // bounded: a warm-up runs it
}

TEST(CudaGraphCache, MissCountsAreBounded) {
  GraphCacheBook book(4, 1 << 20, 2);
  for (int32_t t = 1; t <= static_cast<int32_t>(GraphCacheBook::kMissMemory); ++t)
    ASSERT_EQ(admit(book, B(t), 1), GraphCacheBook::Action::defer);
  // At the bound a new shape's miss makes the book forget the others' misses.
  EXPECT_EQ(admit(book, B(100000), 1), GraphCacheBook::Action::defer);
  EXPECT_EQ(admit(book, B(1), 1), GraphCacheBook::Action::defer);  // forgotten: counts again
  EXPECT_EQ(admit(book, B(1), 1), GraphCacheBook::Action::capture);
  EXPECT_EQ(admit(book, B(100000), 1), GraphCacheBook::Action::capture);  // remembered since
}

TEST(CudaGraphCache, InsertBeyondBudgetIsAnInternalError) {
  GraphCacheBook book(1, 100);
  book.insert(B(16), 100);
  EXPECT_THROW(book.insert(B(32), 1), Error);
  EXPECT_THROW(book.insert(B(16), 1), Error);
}

}  // namespace
}  // namespace laya::cuda
