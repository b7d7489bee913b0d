#include "engine/batch.h"

#include <algorithm>

#include "laya/errors.h"

namespace laya::engine {

int32_t Batch::max_row_length() const {
  int32_t m = 0;
  for (int32_t r = 0; r < rows(); ++r) m = std::max(m, row_length(r));
  return m;
}

int32_t Batch::max_row_markers() const {
  int32_t m = 0;
  for (int32_t r = 0; r < rows(); ++r) m = std::max(m, row_markers(r));
  return m;
}

void Batch::add_row(std::span<const int32_t> ids, std::span<const int32_t> row_markers, int32_t qtype) {
  token_ids.insert(token_ids.end(), ids.begin(), ids.end());
  row_offsets.push_back(static_cast<int32_t>(token_ids.size()));
  markers.insert(markers.end(), row_markers.begin(), row_markers.end());
  marker_offsets.push_back(static_cast<int32_t>(markers.size()));
  qtypes.push_back(qtype);
}

void Batch::append_rows(const Batch& other, int32_t first_row, int32_t count) {
  LAYA_ASSERT(first_row >= 0 && count >= 0 && first_row + count <= other.rows(), "rows [{}, {}) of {}", first_row,
              first_row + count, other.rows());
  for (int32_t r = first_row; r < first_row + count; ++r) {
    add_row(std::span(other.token_ids).subspan(other.row_offsets[r], other.row_length(r)),
            std::span(other.markers).subspan(other.marker_offsets[r], other.row_markers(r)), other.qtypes[r]);
  }
}

void Batch::append(const Batch& other) { append_rows(other, 0, other.rows()); }

Batch Batch::slice(int32_t first_row, int32_t count) const {
  Batch out;
  out.append_rows(*this, first_row, count);
  return out;
}

void Batch::clear() {
  token_ids.clear();
  row_offsets.assign(1, 0);
  qtypes.clear();
  marker_offsets.assign(1, 0);
  markers.clear();
}

void Batch::validate(int32_t vocab_size, int32_t max_row_len) const {
  const auto n = static_cast<size_t>(rows());
  LAYA_ASSERT(row_offsets.size() == n + 1 && marker_offsets.size() == n + 1, "batch offsets do not match {} rows", n);
  LAYA_ASSERT(row_offsets.front() == 0 && marker_offsets.front() == 0, "batch offsets must start at 0");
  LAYA_ASSERT(row_offsets.back() == tokens() && marker_offsets.back() == total_markers(),
              "batch offsets do not cover the token/marker arrays");
  for (int32_t r = 0; r < rows(); ++r) {
    const int32_t len = row_length(r);
    LAYA_ASSERT(len >= 1 && len <= max_row_len, "row {} has length {} (allowed 1..{})", r, len, max_row_len);
    LAYA_ASSERT(row_markers(r) >= 1, "row {} has no option marker", r);
    LAYA_ASSERT(qtypes[r] >= 0 && qtypes[r] <= 2, "row {} has qtype {}", r, qtypes[r]);
    for (int32_t k = marker_offsets[r]; k < marker_offsets[r + 1]; ++k) {
      LAYA_ASSERT(markers[k] >= 0 && markers[k] < len, "row {} marker {} outside the row (length {})", r, markers[k], len);
    }
    for (int32_t t = row_offsets[r]; t < row_offsets[r + 1]; ++t) {
      LAYA_ASSERT(token_ids[t] >= 0 && token_ids[t] < vocab_size, "row {} token {} out of vocabulary ({})", r,
                  token_ids[t], vocab_size);
    }
  }
}

}  // namespace laya::engine
