#include "backends/cuda/staging.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "laya/errors.h"

namespace laya::cuda {

namespace {
int64_t align16(int64_t n) { return (n + 15) / 16 * 16; }
}  // namespace

StagingLayout StagingLayout::for_bucket(const Bucket& b) {
  StagingLayout l;
  int64_t at = 0;
  auto take = [&at](int64_t n) {
    const int64_t start = at;
    at += align16(n);
    return start;
  };
  l.tile_capacity = attention_tile_capacity(b);
  l.ids = take(b.tokens);
  l.pos = take(b.tokens);
  l.tok_row = take(b.tokens);
  l.row_offsets = take(b.row_slots() + 1);
  l.qtypes = take(b.row_slots());
  l.marker_offsets = take(b.row_slots() + 1);
  l.marker_tok = take(b.markers);
  l.tiles = take(l.tile_capacity * 4);
  l.head_tok = take(b.row_slots() + b.markers);
  l.head_marker_row = take(b.markers);
  l.head_tiles = take(l.tile_capacity * 4);
  l.total = at;
  return l;
}

StagedCounts pack_inputs(const engine::Batch& batch, const Bucket& bucket, int32_t vocab_size,
                         int32_t max_row_len, std::span<int32_t> out) {
  // Everything is checked before the first write.
  batch.validate(vocab_size, max_row_len);
  const int32_t t = batch.tokens(), r = batch.rows(), k = batch.total_markers();
  LAYA_REQUIRE(bucket.fits(t, r, k), ErrorKind::internal,
               "batch ({} tokens, {} rows, {} markers) does not fit bucket {}", t, r, k, bucket.to_string());
  const StagingLayout l = StagingLayout::for_bucket(bucket);
  LAYA_REQUIRE(static_cast<int64_t>(out.size()) == l.total, ErrorKind::internal,
               "staging block holds {} elements, bucket {} needs {}", out.size(), bucket.to_string(), l.total);

  std::fill(out.begin(), out.end(), 0);
  int32_t* ids = out.data() + l.ids;
  int32_t* pos = out.data() + l.pos;
  int32_t* tok_row = out.data() + l.tok_row;
  int32_t* row_off = out.data() + l.row_offsets;
  int32_t* qtypes = out.data() + l.qtypes;
  int32_t* mark_off = out.data() + l.marker_offsets;
  int32_t* mark_tok = out.data() + l.marker_tok;
  int32_t* tiles = out.data() + l.tiles;

  std::copy(batch.token_ids.begin(), batch.token_ids.end(), ids);
  const int32_t slots = bucket.row_slots();
  // Row slots: real rows, then empty rows, then the tail row holding the padding tokens.
  for (int32_t s = 0; s <= slots; ++s) {
    row_off[s] = s <= r ? batch.row_offsets[static_cast<size_t>(s)] : (s == slots ? bucket.tokens : t);
    mark_off[s] = s <= r ? batch.marker_offsets[static_cast<size_t>(s)] : k;
  }
  for (int32_t s = 0; s < slots; ++s) qtypes[s] = s < r ? batch.qtypes[static_cast<size_t>(s)] : 0;
  for (int32_t s = 0; s < slots; ++s) {
    for (int32_t i = row_off[s]; i < row_off[s + 1]; ++i) {
      pos[i] = i - row_off[s];
      tok_row[i] = s;
    }
  }
  for (int32_t s = 0; s < r; ++s) {
    for (int32_t m = mark_off[s]; m < mark_off[s + 1]; ++m) mark_tok[m] = row_off[s] + batch.markers[static_cast<size_t>(m)];
  }
  int32_t n_tiles = 0;
  const int32_t qt = attention_query_tile(bucket);
  for (int32_t s = 0; s < slots; ++s) {
    for (int32_t q = row_off[s]; q < row_off[s + 1]; q += qt) {
      LAYA_ASSERT(n_tiles < l.tile_capacity, "attention tile table overflow in bucket {}", bucket.to_string());
      int32_t* e = tiles + 4 * n_tiles;
      e[0] = s;
      e[1] = q;
      e[2] = row_off[s];
      e[3] = row_off[s + 1];
      ++n_tiles;
    }
  }
  std::fill(tiles + 4 * n_tiles, tiles + 4 * l.tile_capacity, -1);

  int32_t* head_tok = out.data() + l.head_tok;
  int32_t* head_tiles = out.data() + l.head_tiles;
  std::fill(head_tok, head_tok + slots + bucket.markers, -1);
  std::fill(head_tiles, head_tiles + 4 * l.tile_capacity, -1);
  int32_t n_head_tiles = 0;
  int32_t* head_marker_row = out.data() + l.head_marker_row;
  std::vector<int32_t> slot_of;  // per position of one row: the head_tok slot listing it, or -1
  for (int32_t s = 0; s < r; ++s) {
    const int32_t first = row_off[s];
    slot_of.assign(static_cast<size_t>(row_off[s + 1] - first), -1);
    // Lists `tok` in `slot` unless the row listed it already (a token listed twice is listed once, its
    // later slot left -1); returns the slot that lists it.
    auto take_token = [&](int32_t slot, int32_t tok) {
      int32_t& at = slot_of[static_cast<size_t>(tok - first)];
      if (at < 0) {
        at = slot;
        head_tok[slot] = tok;
      }
      return at;
    };
    take_token(s, first);  // a batch row holds at least one token (Batch::validate)
    for (int32_t m = mark_off[s]; m < mark_off[s + 1]; ++m) head_marker_row[m] = take_token(slots + m, mark_tok[m]);
    const int32_t len = static_cast<int32_t>(slot_of.size());
    for (int32_t q = 0; q < len; q += qt) {  // the row's tiles, in order
      const int32_t end = std::min<int32_t>(q + qt, len);
      if (std::all_of(slot_of.begin() + q, slot_of.begin() + end, [](int32_t v) { return v < 0; })) continue;
      int32_t* e = head_tiles + 4 * n_head_tiles;
      e[0] = s;
      e[1] = first + q;
      e[2] = first;
      e[3] = row_off[s + 1];
      ++n_head_tiles;
    }
  }
  return StagedCounts{t, r, k, n_tiles, n_head_tiles};
}

}  // namespace laya::cuda
