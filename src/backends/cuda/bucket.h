// Shape buckets for the CUDA engine: a Batch (varlen rows packed back to back) runs at a padded
// shape (tokens, rows, markers) so that one captured CUDA Graph serves every batch that fits it.
//
// Padding is bounded: each dimension rounds up to a step of max(min_step, 2^floor(log2 n) / 8), so
// at most 12.5% of a bucket is padding (plus the minimum step for tiny n). The padding tokens form a
// dummy tail row after the real rows; its attention output is zero (AttentionParams::zero_row), and
// no real row attends to it, so it never touches real rows.
// Plain C++ (no CUDA): unit-tested without a GPU.
#pragma once

#include <cstdint>

#include "backends/cuda/tile.h"
#include <string>
#include <utility>
#include <vector>

namespace laya::cuda {

struct Bucket {
  int32_t tokens = 0;   // padded token count (GEMM M)
  int32_t rows = 0;     // padded row count (real rows + empty rows); the tail row comes after these
  int32_t markers = 0;  // padded marker count (scorer GEMM M)

  int32_t row_slots() const { return rows + 1; }  // real/empty rows + the dummy tail row
  bool operator==(const Bucket&) const = default;
  bool fits(int32_t t, int32_t r, int32_t k) const { return t <= tokens && r <= rows && k <= markers; }
  std::string to_string() const;  // "T480xR4xK16"
};

struct BucketHash {
  size_t operator()(const Bucket& b) const noexcept;
};

// Rounds n (>= 1) up to the bounded-waste grid: step = max(min_step, highest_pow2(n) / 8).
int32_t round_up_bounded(int32_t n, int32_t min_step);

// Limits of the engine's workspace (the largest batch it accepts).
struct BucketLimits {
  int32_t max_tokens = 8192;
  int32_t max_rows = 16;
  int32_t max_markers = 2048;
};

// The workspace's token limit (BucketLimits::max_tokens) for a checkpoint whose rows have at most
// max_row_len tokens: 16 such rows (at least 1,024 tokens) by default; `requested` > 0
// (BackendOptions::max_tokens, serve's --max-batch-tokens) lowers it to save device memory, but
// never below one full row (nor 1,024 tokens) — larger batches run in parts — and never raises it
// (from ≈ 3k tokens on a forward's tokens/s hardly grows: docs/benchmarks/cuda.md item 96).
// requested 0: the default; < 0: laya::Error (bad_request).
int32_t workspace_max_tokens(int32_t max_row_len, int64_t requested);

// The bucket for a batch of t tokens, r rows and k markers (t, r, k >= 1). Throws laya::Error
// (too_large) naming the dimension when the batch exceeds the limits. Padded dims are clamped to
// the limits (a batch at the limit runs unpadded).
Bucket choose_bucket(int32_t t, int32_t r, int32_t k, const BucketLimits& limits);

// Every token count a bucket can have under these limits (ascending): the values choose_bucket
// gives for 1..max_tokens tokens — 8 a power-of-two octave above 128 (56 up to 8,192). The
// start-up warm-up runs one forward per count (BackendOptions::warmup_shapes "auto").
std::vector<int32_t> bucket_token_counts(const BucketLimits& limits);

// Queries per attention tile for the bucket: kAttnTile (64); kAttnTileSmall (LAYA_CUDA_ATTN_SMALL_TILE:
// 16, 32 or 64, read once per process) for buckets of at most kAttnTileSmallMaxTokens tokens.
int32_t attention_query_tile(const Bucket& b);

// Query tiles of the attention kernel (attention_query_tile(b) queries each): the upper bound on
// the tile count for any batch that fits the bucket, real rows and tail row together.
int32_t attention_tile_capacity(const Bucket& b);

// Key groups per attention block (AttentionParams::key_split: 1, 2 or 4, at most max_split) for
// the bucket on a GPU of `sms` SMs: the largest that keeps the bucket's blocks (about
// tokens / 64 x heads) within one wave of 16 warps per SM, and no more groups than the bucket's
// average row (tokens / rows, at most max_row_len) has 64-key tiles: buckets of short rows (4x64)
// would only add idle groups (measured); four groups only from 8 key tiles (rows of 449+ tokens:
// at 1x256 / 2x256 / 1x384 two groups are faster, item 184).
int32_t attention_key_split(const Bucket& b, int32_t heads, int32_t sms, int32_t max_row_len, int32_t max_split);

// Whether an encoder layer's K is rotated once, in place, by the RoPE pass (launch_rope k_only)
// before attention instead of in attention's loads (where the QKV GEMM does not rotate it itself):
// every layer of buckets over all_above tokens, where a K tile is read by many query tiles; and
// global layers also where the bucket's rows average more than global_row_above tokens (0: never)
// — each of a long row's query tiles walks all its key tiles there, rotating every one again and
// reading its RoPE rows, and a key group's later tiles load synchronously, while a windowed layer's
// block sees 3 key tiles (docs/benchmarks/cuda.md item 216).
bool rotates_k_once(const Bucket& b, bool global_layer, int32_t all_above, int32_t global_row_above);

// Whether the fused GeGLU GEMM (geglu_gemm.cuh) suits an MLP input GEMM of `tokens` rows on `sms`
// SMs: its persistent CTAs take the 256 x 64 tiles (tile.h) in rounds of `sms`, and a short second
// round costs it about a whole round more, while cuBLASLt's GEMM and the GeGLU pass have no such
// step. False where the tiles are one full round and a last round of fewer than min_fill_pct
// percent of `sms`; true otherwise (min_fill_pct 0: always). Measured on the H200
// (docs/benchmarks/cuda.md item 149), multilingual inter 1,152: 1,920 and 2,048 tokens (144 tiles:
// 132 + 12) -0.038 / -0.046 ms with cuBLASLt + the pass, 2,304 (162: 132 + 30) -0.020, but 2,560
// (180: 132 + 48) +0.055; after two full rounds a short one does not pay for the switch (4,096
// tokens, 288 = 264 + 24: +0.114; english 1,792, 287 = 264 + 23: +0.101).
bool geglu_gemm_fills_its_rounds(int32_t tokens, int32_t inter, int32_t sms, int32_t min_fill_pct);

// Parses a shape list "1x48,4x64" (rows x tokens per row; spaces allowed, empty = none); throws
// laya::Error(bad_request) naming the bad item.
std::vector<std::pair<int32_t, int32_t>> parse_shapes(const std::string& list);

}  // namespace laya::cuda
