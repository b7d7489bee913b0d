#include <gtest/gtest.h>

#include <vector>

#include "engine/batch.h"
#include "laya/errors.h"

namespace laya::engine {
namespace {

Batch two_rows() {
  Batch b;
  std::vector<int32_t> r0{1, 2, 3, 4}, m0{1, 2};
  std::vector<int32_t> r1{5, 6}, m1{1};
  b.add_row(r0, m0, 0);
  b.add_row(r1, m1, 2);
  return b;
}

TEST(Batch, PacksRowsBackToBack) {
  Batch b = two_rows();
  EXPECT_EQ(b.rows(), 2);
  EXPECT_EQ(b.tokens(), 6);
  EXPECT_EQ(b.row_offsets, (std::vector<int32_t>{0, 4, 6}));
  EXPECT_EQ(b.marker_offsets, (std::vector<int32_t>{0, 2, 3}));
  EXPECT_EQ(b.max_row_length(), 4);
  EXPECT_EQ(b.max_row_markers(), 2);
  EXPECT_NO_THROW(b.validate(10, 8));
}

TEST(Batch, AppendKeepsRowsAndOrder) {
  Batch a = two_rows(), b = two_rows();
  a.append(b);
  EXPECT_EQ(a.rows(), 4);
  EXPECT_EQ(a.row_offsets.back(), 12);
  EXPECT_EQ(a.qtypes, (std::vector<int32_t>{0, 2, 0, 2}));
  EXPECT_NO_THROW(a.validate(10, 8));
}

TEST(Batch, ValidateRejectsBadRows) {
  Batch b = two_rows();
  EXPECT_THROW(b.validate(6, 8), Error);  // token 6 out of a 6-word vocabulary
  EXPECT_THROW(b.validate(10, 3), Error);  // row longer than allowed
  Batch m = two_rows();
  m.markers[2] = 2;  // row 1 has length 2
  EXPECT_THROW(m.validate(10, 8), Error);
  Batch q = two_rows();
  q.qtypes[0] = 3;
  EXPECT_THROW(q.validate(10, 8), Error);
  Batch none;
  std::vector<int32_t> ids{1}, no_markers;
  none.add_row(ids, no_markers, 0);
  EXPECT_THROW(none.validate(10, 8), Error);
}

}  // namespace
}  // namespace laya::engine
