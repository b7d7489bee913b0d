// Host staging of one forward's inputs: every integer the kernels read (token ids, positions,
// token->row map, row offsets, qtypes, marker offsets, marker token indices, attention tile table,
// the tokens the heads read, each marker's row among them, and their attention tiles) in ONE
// contiguous int32 block, so the upload is one async copy from pinned memory (and one memcpy node
// inside a CUDA Graph). The block is laid out per bucket; the same layout gives the
// device-side pointers.
//
// pack_inputs validates the whole batch against the model and the bucket before anything is
// written, so an invalid request never reaches a CUDA call. Plain C++ (no CUDA): unit-tested
// without a GPU.
#pragma once

#include <cstdint>
#include <span>

#include "backends/cuda/bucket.h"
#include "engine/batch.h"

namespace laya::cuda {

// Offsets (in int32 elements) of each section inside the staging block; sections start on
// 16-element (64-byte) boundaries.
struct StagingLayout {
  int64_t ids = 0;             // [tokens]    token id (padding: 0)
  int64_t pos = 0;             // [tokens]    position inside its row
  int64_t tok_row = 0;         // [tokens]    row slot of the token (tail tokens: rows)
  int64_t row_offsets = 0;     // [row_slots + 1]
  int64_t qtypes = 0;          // [row_slots]
  int64_t marker_offsets = 0;  // [row_slots + 1]
  int64_t marker_tok = 0;      // [markers]   packed token index of each marker (padding: 0)
  int64_t tiles = 0;           // [tile_capacity * 4] (row slot, first query, row start, row end) or -1s
  int64_t tile_capacity = 0;
  // The tokens whose last-decision-layer output the heads read (cuda_backend.cpp, "pruned last
  // decision layer"): [row_slots] each real row's first token ([CLS], read by the act head), then
  // [markers] each marker's token (read by the scorer); -1 for padding slots.
  int64_t head_tok = 0;
  // [markers]: the slot of head_tok holding each marker's token (its own, its row's [CLS] slot or
  // an earlier marker's on the same token; 0 for padding markers), so the heads can read the
  // compact rows themselves.
  int64_t head_marker_row = 0;
  // [tile_capacity * 4]: the attention tiles (as in `tiles`) holding at least one head_tok token,
  // then -1s.
  int64_t head_tiles = 0;
  int64_t total = 0;           // elements in the block

  static StagingLayout for_bucket(const Bucket& b);
  int64_t bytes() const { return total * 4; }
};

// What the packed batch holds (the real counts).
struct StagedCounts {
  int32_t tokens = 0;
  int32_t rows = 0;
  int32_t markers = 0;
  int32_t tiles = 0;
  int32_t head_tiles = 0;
};

// Validates `batch` (structure, ids < vocab, rows <= max_row_len, fits `bucket`) and writes the
// staging block for `bucket` into `out` (exactly layout.total elements). Throws laya::Error before
// writing anything if the batch is invalid.
StagedCounts pack_inputs(const engine::Batch& batch, const Bucket& bucket, int32_t vocab_size,
                         int32_t max_row_len, std::span<int32_t> out);

}  // namespace laya::cuda
