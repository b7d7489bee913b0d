// Batch: the unit of work every backend runs — token rows packed back to back (varlen, no
// padding inside the batch), one row per question, possibly from many requests.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace laya::engine {

struct Batch {
  std::vector<int32_t> token_ids;       // all rows concatenated
  std::vector<int32_t> row_offsets{0};  // size rows()+1: row r is token_ids[row_offsets[r], row_offsets[r+1])
  std::vector<int32_t> qtypes;          // per row: 0 choice, 1 score, 2 noul
  std::vector<int32_t> marker_offsets{0};  // size rows()+1: row r's markers are markers[marker_offsets[r] ...]
  std::vector<int32_t> markers;         // option-marker positions, relative to the start of their row

  int32_t rows() const { return static_cast<int32_t>(qtypes.size()); }
  int32_t tokens() const { return static_cast<int32_t>(token_ids.size()); }
  int32_t total_markers() const { return static_cast<int32_t>(markers.size()); }
  int32_t row_length(int32_t r) const { return row_offsets[r + 1] - row_offsets[r]; }
  int32_t row_markers(int32_t r) const { return marker_offsets[r + 1] - marker_offsets[r]; }
  int32_t max_row_length() const;
  int32_t max_row_markers() const;

  void add_row(std::span<const int32_t> ids, std::span<const int32_t> row_markers, int32_t qtype);
  void append(const Batch& other);  // rows of `other` after this batch's rows
  void append_rows(const Batch& other, int32_t first_row, int32_t count);  // its rows [first_row, first_row + count)
  Batch slice(int32_t first_row, int32_t count) const;  // a batch of rows [first_row, first_row + count)
  void clear();

  // Structural validation (offsets monotone and consistent, every row non-empty, at least one
  // marker per row, markers inside their row, ids in [0, vocab_size), qtype in {0,1,2}).
  // Throws laya::Error(internal) naming the row; backends call it before any device work.
  void validate(int32_t vocab_size, int32_t max_row_len) const;
};

// What a backend returns: only per-option logits and per-row action logits leave the device.
struct ForwardResult {
  std::vector<float> logits;      // one per marker, aligned with Batch::markers
  std::vector<float> act_logits;  // n_act per row, row-major
  int32_t n_act = 2;
};

}  // namespace laya::engine
