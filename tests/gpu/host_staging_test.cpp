// Staging of a forward's inputs (host-side, runs without a GPU): layout, packing, the dummy tail
// row, the attention tile table, and validation before anything is written.
#include <gtest/gtest.h>

#include <vector>

#include "backends/cuda/bucket.h"
#include "backends/cuda/staging.h"
#include "laya/errors.h"

namespace laya::cuda {
namespace {

engine::Batch two_rows() {
  engine::Batch b;
  std::vector<int32_t> r0(70), r1(5);
  for (int i = 0; i < 70; ++i) r0[static_cast<size_t>(i)] = 10 + i;
  for (int i = 0; i < 5; ++i) r1[static_cast<size_t>(i)] = 200 + i;
  b.add_row(r0, std::vector<int32_t>{3, 9}, 1);
  b.add_row(r1, std::vector<int32_t>{4}, 2);
  return b;
}

TEST(CudaStaging, LayoutSectionsAreAlignedAndDisjoint) {
  const Bucket b{96, 3, 8};
  const auto l = StagingLayout::for_bucket(b);
  const std::vector<int64_t> starts{l.ids,        l.pos,        l.tok_row,         l.row_offsets,
                                    l.qtypes,     l.marker_offsets, l.marker_tok,  l.tiles,
                                    l.head_tok,   l.head_marker_row, l.head_tiles};
  for (size_t i = 0; i < starts.size(); ++i) {
    EXPECT_EQ(starts[i] % 16, 0);
    if (i > 0) {
      EXPECT_GT(starts[i], starts[i - 1]);
    }
  }
  EXPECT_GE(l.pos - l.ids, 96);
  EXPECT_GE(l.head_tok - l.tiles, l.tile_capacity * 4);
  EXPECT_GE(l.head_marker_row - l.head_tok, b.row_slots() + b.markers);
  EXPECT_GE(l.head_tiles - l.head_marker_row, b.markers);
  EXPECT_GE(l.total - l.head_tiles, l.tile_capacity * 4);
}

TEST(CudaStaging, PacksRowsTailAndTiles) {
  const engine::Batch batch = two_rows();
  const Bucket b{96, 3, 8};
  const auto l = StagingLayout::for_bucket(b);
  std::vector<int32_t> buf(static_cast<size_t>(l.total), -7);
  const StagedCounts c = pack_inputs(batch, b, 1000, 128, buf);
  EXPECT_EQ(c.tokens, 75);
  EXPECT_EQ(c.rows, 2);
  EXPECT_EQ(c.markers, 3);
  const int32_t* ro = buf.data() + l.row_offsets;
  // slots: row 0, row 1, empty row 2, tail (slot 3) holding tokens 75..95
  EXPECT_EQ(std::vector<int32_t>(ro, ro + 5), (std::vector<int32_t>{0, 70, 75, 75, 96}));
  const int32_t* mo = buf.data() + l.marker_offsets;
  EXPECT_EQ(std::vector<int32_t>(mo, mo + 5), (std::vector<int32_t>{0, 2, 3, 3, 3}));
  const int32_t* mt = buf.data() + l.marker_tok;
  EXPECT_EQ(std::vector<int32_t>(mt, mt + 8), (std::vector<int32_t>{3, 9, 74, 0, 0, 0, 0, 0}));
  const int32_t* ids = buf.data() + l.ids;
  EXPECT_EQ(ids[0], 10);
  EXPECT_EQ(ids[70], 200);
  EXPECT_EQ(ids[80], 0);  // tail padding
  const int32_t* pos = buf.data() + l.pos;
  EXPECT_EQ(pos[69], 69);
  EXPECT_EQ(pos[70], 0);
  EXPECT_EQ(pos[75], 0);
  EXPECT_EQ(pos[95], 20);
  const int32_t* tr = buf.data() + l.tok_row;
  EXPECT_EQ(tr[0], 0);
  EXPECT_EQ(tr[72], 1);
  EXPECT_EQ(tr[90], 3);
  const int32_t* qt = buf.data() + l.qtypes;
  EXPECT_EQ(std::vector<int32_t>(qt, qt + 4), (std::vector<int32_t>{1, 2, 0, 0}));
  // tiles (row, first query, row start, row end) of 32 queries (a bucket of <= 128 tokens:
  // kAttnTileSmall): row 0 -> q 0, 32, 64; row 1 -> 70; tail -> 75
  ASSERT_EQ(attention_query_tile(b), 32);
  EXPECT_EQ(c.tiles, 5);
  const int32_t* t = buf.data() + l.tiles;
  EXPECT_EQ(std::vector<int32_t>(t, t + 20),
            (std::vector<int32_t>{0, 0, 0, 70, 0, 32, 0, 70, 0, 64, 0, 70, 1, 70, 70, 75, 3, 75, 75, 96}));
  for (int64_t i = 4 * c.tiles; i < 4 * l.tile_capacity; ++i) EXPECT_EQ(t[i], -1);
}

// The rows the heads read (the pruned last decision layer): each real row's first token, then the
// markers; a token listed twice (a marker on [CLS], a repeated marker) once; for each marker the slot
// that lists its token; the tiles holding them.
TEST(CudaStaging, ListsTheHeadRowsAndTheirTiles) {
  const Bucket b{96, 3, 8};
  const auto l = StagingLayout::for_bucket(b);
  std::vector<int32_t> buf(static_cast<size_t>(l.total), -7);
  const StagedCounts c = pack_inputs(two_rows(), b, 1000, 128, buf);
  const int32_t* ht = buf.data() + l.head_tok;
  // slots 0..3 (rows 0, 1, empty row 2, tail), then the 8 marker slots
  EXPECT_EQ(std::vector<int32_t>(ht, ht + 12), (std::vector<int32_t>{0, 70, -1, -1, 3, 9, 74, -1, -1, -1, -1, -1}));
  const int32_t* hm = buf.data() + l.head_marker_row;
  EXPECT_EQ(std::vector<int32_t>(hm, hm + 8), (std::vector<int32_t>{4, 5, 6, 0, 0, 0, 0, 0}));
  EXPECT_EQ(c.head_tiles, 2);  // row 0: tile 0 only (tokens 64..69 hold no head token); row 1: its tile
  const int32_t* tl = buf.data() + l.head_tiles;
  EXPECT_EQ(std::vector<int32_t>(tl, tl + 8), (std::vector<int32_t>{0, 0, 0, 70, 1, 70, 70, 75}));
  for (int64_t i = 4 * c.head_tiles; i < 4 * l.tile_capacity; ++i) EXPECT_EQ(tl[i], -1);

  engine::Batch dup;  // row 0: markers on [CLS], twice on 100 and on 130; row 1: one token
  dup.add_row(std::vector<int32_t>(140, 5), std::vector<int32_t>{0, 100, 100, 130}, 0);
  dup.add_row(std::vector<int32_t>(1, 5), std::vector<int32_t>{0}, 1);
  const Bucket b2{144, 2, 8};
  const auto l2 = StagingLayout::for_bucket(b2);
  std::vector<int32_t> buf2(static_cast<size_t>(l2.total));
  const StagedCounts c2 = pack_inputs(dup, b2, 1000, 256, buf2);
  const int32_t* ht2 = buf2.data() + l2.head_tok;
  EXPECT_EQ(std::vector<int32_t>(ht2, ht2 + 11), (std::vector<int32_t>{0, 140, -1, -1, 100, -1, 130, -1, -1, -1, -1}));
  const int32_t* hm2 = buf2.data() + l2.head_marker_row;  // [CLS]'s slot 0, 100's slot 4 twice, row 1's [CLS]
  EXPECT_EQ(std::vector<int32_t>(hm2, hm2 + 8), (std::vector<int32_t>{0, 4, 4, 6, 1, 0, 0, 0}));
  EXPECT_EQ(c2.head_tiles, 4);  // row 0: tiles at 0, 64 (100), 128 (130); row 1: its tile
  const int32_t* tl2 = buf2.data() + l2.head_tiles;
  EXPECT_EQ(std::vector<int32_t>(tl2, tl2 + 16),
            (std::vector<int32_t>{0, 0, 0, 140, 0, 64, 0, 140, 0, 128, 0, 140, 1, 140, 140, 141}));
}

TEST(CudaStaging, InvalidBatchWritesNothing) {
  engine::Batch bad = two_rows();
  bad.token_ids[3] = 5000;  // out of vocabulary
  const Bucket b{96, 3, 8};
  const auto l = StagingLayout::for_bucket(b);
  std::vector<int32_t> buf(static_cast<size_t>(l.total), -7);
  EXPECT_THROW(pack_inputs(bad, b, 1000, 128, buf), Error);
  for (int32_t v : buf) ASSERT_EQ(v, -7);
  engine::Batch long_row;
  long_row.add_row(std::vector<int32_t>(129, 1), std::vector<int32_t>{0}, 0);
  std::vector<int32_t> buf2(static_cast<size_t>(StagingLayout::for_bucket(Bucket{144, 1, 8}).total));
  EXPECT_THROW(pack_inputs(long_row, Bucket{144, 1, 8}, 1000, 128, buf2), Error);
  // does not fit the bucket
  EXPECT_THROW(pack_inputs(two_rows(), Bucket{64, 3, 8}, 1000, 128, buf), Error);
  for (int32_t v : buf) ASSERT_EQ(v, -7);
}

}  // namespace
}  // namespace laya::cuda
