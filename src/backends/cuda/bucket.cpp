#include "backends/cuda/bucket.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "laya/errors.h"

namespace laya::cuda {

std::string Bucket::to_string() const { return fmt::format("T{}xR{}xK{}", tokens, rows, markers); }

size_t BucketHash::operator()(const Bucket& b) const noexcept {
  uint64_t h = static_cast<uint64_t>(static_cast<uint32_t>(b.tokens));
  h = h * 1000003u ^ static_cast<uint32_t>(b.rows);
  h = h * 1000003u ^ static_cast<uint32_t>(b.markers);
  return std::hash<uint64_t>{}(h);
}

int32_t round_up_bounded(int32_t n, int32_t min_step) {
  LAYA_ASSERT(n >= 1 && min_step >= 1, "round_up_bounded({}, {})", n, min_step);
  const int32_t pow2 = static_cast<int32_t>(std::bit_floor(static_cast<uint32_t>(n)));
  const int32_t step = std::max(min_step, pow2 / 8);
  return (n + step - 1) / step * step;
}

int32_t workspace_max_tokens(int32_t max_row_len, int64_t requested) {
  LAYA_REQUIRE(requested >= 0, ErrorKind::bad_request, "tokens per forward must be >= 0 (0: the default; got {})",
               requested);
  const int32_t most = std::max(16 * max_row_len, 1024);
  if (requested == 0) return most;
  const int32_t least = std::max(max_row_len, 1024);
  return static_cast<int32_t>(std::clamp<int64_t>(requested, least, most));
}

Bucket choose_bucket(int32_t t, int32_t r, int32_t k, const BucketLimits& limits) {
  LAYA_REQUIRE(t >= 1 && r >= 1 && k >= 1, ErrorKind::internal,
               "empty batch ({} tokens, {} rows, {} markers) reached the CUDA engine", t, r, k);
  LAYA_REQUIRE(t <= limits.max_tokens, ErrorKind::too_large,
               "batch of {} tokens exceeds the CUDA workspace ({} tokens)", t, limits.max_tokens);
  LAYA_REQUIRE(r <= limits.max_rows, ErrorKind::too_large,
               "batch of {} rows exceeds the CUDA workspace ({} rows)", r, limits.max_rows);
  LAYA_REQUIRE(k <= limits.max_markers, ErrorKind::too_large,
               "batch of {} option markers exceeds the CUDA workspace ({} markers)", k, limits.max_markers);
  Bucket b;
  b.tokens = std::min(round_up_bounded(t, 16), limits.max_tokens);
  b.rows = std::min(round_up_bounded(r, 1), limits.max_rows);
  b.markers = std::min(round_up_bounded(k, 8), limits.max_markers);
  return b;
}

std::vector<int32_t> bucket_token_counts(const BucketLimits& limits) {
  std::vector<int32_t> out;
  for (int32_t t = 1; t <= limits.max_tokens;) {
    const int32_t b = std::min(round_up_bounded(t, 16), limits.max_tokens);
    out.push_back(b);
    t = b + 1;  // every count up to b rounds to b or below
  }
  return out;
}

int32_t attention_query_tile(const Bucket& b) {
  static const int32_t small = [] {
    const char* v = std::getenv("LAYA_CUDA_ATTN_SMALL_TILE");
    const int32_t q = v != nullptr ? std::atoi(v) : kAttnTileSmall;
    return q == 16 || q == 32 ? q : kAttnTile;
  }();
  return b.tokens <= kAttnTileSmallMaxTokens ? small : kAttnTile;
}

int32_t attention_tile_capacity(const Bucket& b) {
  // Each row of length n needs ceil(n / q) <= (n + q - 1) / q tiles; summed over all row slots.
  const int32_t q = attention_query_tile(b);
  return (b.tokens + (q - 1) * b.row_slots()) / q;
}

int32_t attention_key_split(const Bucket& b, int32_t heads, int32_t sms, int32_t max_row_len, int32_t max_split) {
  const int32_t q = attention_query_tile(b);
  const int64_t blocks = static_cast<int64_t>((b.tokens + q - 1) / q) * heads;
  const int32_t key_tiles = (std::min(b.tokens / std::max(b.rows, 1), max_row_len) + 63) / 64;
  int32_t split = 1;
  // A block of one group is 4 warps; 16 warps per SM fit (128 registers per thread). Four groups
  // only where each gets two key tiles or more (docs/benchmarks/cuda.md item 184).
  auto enough_tiles = [key_tiles](int32_t groups) { return groups <= 2 ? groups <= key_tiles : 2 * groups <= key_tiles; };
  while (split * 2 <= std::min(max_split, 4) && blocks * split * 2 * 4 <= int64_t{16} * sms && enough_tiles(split * 2))
    split *= 2;
  return split;
}

bool rotates_k_once(const Bucket& b, bool global_layer, int32_t all_above, int32_t global_row_above) {
  if (b.tokens > all_above) return true;
  return global_layer && global_row_above > 0 && b.tokens / std::max(b.rows, 1) > global_row_above;
}

bool geglu_gemm_fills_its_rounds(int32_t tokens, int32_t inter, int32_t sms, int32_t min_fill_pct) {
  if (min_fill_pct <= 0 || sms <= 0) return true;
  const int64_t tiles = int64_t{(tokens + kGegluGemmTileRows - 1) / kGegluGemmTileRows} *
                        ((inter + kGegluGemmTileOutputs - 1) / kGegluGemmTileOutputs);
  // One full round and a last round of fewer than min_fill_pct percent of the SMs' tiles.
  return !(tiles > sms && (tiles - sms) * 100 < int64_t{min_fill_pct} * sms);
}

std::vector<std::pair<int32_t, int32_t>> parse_shapes(const std::string& list) {
  std::vector<std::pair<int32_t, int32_t>> out;
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    std::string item;
    for (size_t i = at; i < comma; ++i)
      if (list[i] != ' ') item += list[i];
    at = comma + 1;
    if (item.empty()) {
      if (comma == list.size()) break;
      continue;
    }
    const size_t x = item.find('x');
    int32_t r = 0, l = 0;
    bool ok = x != std::string::npos && x > 0 && x + 1 < item.size();
    if (ok) {
      try {
        size_t used_r = 0, used_l = 0;
        r = std::stoi(item.substr(0, x), &used_r);
        l = std::stoi(item.substr(x + 1), &used_l);
        ok = used_r == x && used_l == item.size() - x - 1 && r >= 1 && l >= 1;
      } catch (const std::exception&) {
        ok = false;
      }
    }
    LAYA_REQUIRE(ok, ErrorKind::bad_request, "bad shape '{}' (expected ROWSxTOKENS, e.g. 4x64)", item);
    out.emplace_back(r, l);
  }
  return out;
}

}  // namespace laya::cuda
