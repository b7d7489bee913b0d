// Running a batch larger than a backend's capacity (Backend::capacity): consecutive row ranges
// that each fit, one forward per range, the outputs concatenated in row order. Rows are
// independent sequences, so every row gets the answer it would get in any other grouping (up to
// the rounding of the bucket it runs in, as with cross-request batching).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/backend.h"
#include "engine/batch.h"

namespace laya::engine {

struct RowRange {
  int32_t first = 0, count = 0;
};

// The batch's rows in consecutive ranges, each as many rows as fit `cap` (one range when the batch
// fits). Throws laya::Error(too_large) when a single row does not fit.
std::vector<RowRange> split_rows(const Batch& batch, const BatchCapacity& cap);

// backend.forward over each range of `parts` (split_rows), results concatenated in row order.
ForwardResult forward_parts(Backend& backend, const Batch& batch, const std::vector<RowRange>& parts);

// forward_parts over split_rows(batch, backend.capacity()).
ForwardResult forward_in_parts(Backend& backend, const Batch& batch);

}  // namespace laya::engine
