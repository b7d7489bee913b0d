// Splitting a batch into forwards that fit a backend's capacity (engine/parts.h).
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "../runtime/fake_backend.h"
#include "engine/parts.h"
#include "laya/errors.h"

namespace laya::engine {
namespace {

// Rows of the given lengths; row r's tokens are 100 r + i, its markers at 0 and (when long enough) 1.
Batch rows_of(const std::vector<int32_t>& lengths) {
  Batch b;
  for (size_t r = 0; r < lengths.size(); ++r) {
    std::vector<int32_t> ids(static_cast<size_t>(lengths[r]));
    std::iota(ids.begin(), ids.end(), static_cast<int32_t>(100 * r));
    std::vector<int32_t> m{0};
    if (lengths[r] > 1) m.push_back(1);
    b.add_row(ids, m, static_cast<int32_t>(r % 3));
  }
  return b;
}

TEST(Batch, SliceTakesTheRowsWithTheirMarkers) {
  const Batch b = rows_of({4, 1, 3, 2});
  const Batch s = b.slice(1, 2);
  EXPECT_EQ(s.rows(), 2);
  EXPECT_EQ(s.token_ids, (std::vector<int32_t>{100, 200, 201, 202}));
  EXPECT_EQ(s.row_offsets, (std::vector<int32_t>{0, 1, 4}));
  EXPECT_EQ(s.markers, (std::vector<int32_t>{0, 0, 1}));
  EXPECT_EQ(s.marker_offsets, (std::vector<int32_t>{0, 1, 3}));
  EXPECT_EQ(s.qtypes, (std::vector<int32_t>{1, 2}));
  EXPECT_NO_THROW(s.validate(1000, 8));
  EXPECT_EQ(b.slice(0, 0).rows(), 0);
  EXPECT_THROW((void)b.slice(3, 2), Error);
  EXPECT_THROW((void)b.slice(-1, 1), Error);
}

TEST(Parts, OneRangeWhenTheBatchFits) {
  const Batch b = rows_of({5, 5, 5});
  const auto parts = split_rows(b, {});
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].first, 0);
  EXPECT_EQ(parts[0].count, 3);
  EXPECT_EQ(split_rows(b, {3, 15, 6}).size(), 1u);  // exactly at the capacity
}

TEST(Parts, GreedyConsecutiveRangesWithinEveryLimit) {
  const Batch b = rows_of({5, 5, 5, 5, 5, 5, 5});
  auto count_of = [](const std::vector<RowRange>& p) {
    std::vector<int32_t> c;
    for (const auto& r : p) c.push_back(r.count);
    return c;
  };
  EXPECT_EQ(count_of(split_rows(b, {3, 1000, 1000})), (std::vector<int32_t>{3, 3, 1}));    // rows
  EXPECT_EQ(count_of(split_rows(b, {100, 12, 1000})), (std::vector<int32_t>{2, 2, 2, 1}));  // tokens
  EXPECT_EQ(count_of(split_rows(b, {100, 1000, 5})), (std::vector<int32_t>{2, 2, 2, 1}));   // markers
  // Every range starts where the previous ended and together they cover the batch.
  for (BatchCapacity cap : {BatchCapacity{1, 1000, 1000}, BatchCapacity{4, 11, 7}, BatchCapacity{2, 5, 2}}) {
    int32_t next = 0;
    for (const RowRange& r : split_rows(b, cap)) {
      EXPECT_EQ(r.first, next);
      EXPECT_GE(r.count, 1);
      const Batch s = b.slice(r.first, r.count);
      EXPECT_TRUE(cap.fits(s.rows(), s.tokens(), s.total_markers()));
      next += r.count;
    }
    EXPECT_EQ(next, b.rows());
  }
}

TEST(Parts, ARowThatFitsNoForwardIsRefused) {
  const Batch b = rows_of({3, 9, 3});
  try {
    (void)split_rows(b, {64, 8, 100});
    FAIL() << "expected too_large";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::too_large);
  }
  EXPECT_THROW((void)split_rows(b, {64, 100, 1}), Error);  // a row with two markers
}

// test::FakeBackend refuses what exceeds its capacity (as the CUDA engine does) and answers each
// marker with its token id and each row with {length, first token}.
TEST(Parts, ForwardInPartsEqualsOneForwardOfTheWholeBatch) {
  const Batch b = rows_of({7, 3, 9, 2, 8, 8, 1, 4});
  auto whole = std::make_shared<test::FakeBackendControl>();
  test::FakeBackend roomy(whole);  // unlimited
  const ForwardResult want = roomy.forward(b, nullptr);
  auto capped = std::make_shared<test::FakeBackendControl>();
  capped->capacity = {3, 20, 5};
  test::FakeBackend backend(capped);
  EXPECT_THROW((void)backend.forward(b, nullptr), Error);  // the backend itself refuses the whole batch
  const ForwardResult got = forward_in_parts(backend, b);
  EXPECT_GT(capped->forwards.load(), 1);
  EXPECT_LE(capped->max_rows_seen.load(), 3);
  EXPECT_LE(capped->max_tokens_seen.load(), 20);
  EXPECT_EQ(got.logits, want.logits);
  EXPECT_EQ(got.act_logits, want.act_logits);
  EXPECT_EQ(got.n_act, want.n_act);
  (void)forward_in_parts(roomy, b);  // within its capacity: one forward
  EXPECT_EQ(whole->forwards.load(), 2);
}

}  // namespace
}  // namespace laya::engine
