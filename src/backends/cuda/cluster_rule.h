// Which cuBLASLt GEMMs run the heuristic's pick without a thread-block cluster (Gemm forces the
// pick's cluster shape to 1x1x1 where cuBLASLt accepts that; gemm.h): ranges of row counts M, each
// for every GEMM shape or only for listed (N, K). nvjet's picks come with 2x1 / 4x1 / 4x2 clusters;
// whether the same tiles run faster without one depends on M and on the shape (measured on the
// H200: docs/benchmarks/cuda.md items 55, 123 and 126). Plain C++: unit-tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace laya::cuda {

struct SingleCtaClusterRange {
  int32_t from = 1, to = 0;                     // rows M in [from, to]
  std::vector<std::pair<int32_t, int32_t>> nk;  // only these (N, K); empty: every shape
  bool contains(int32_t m, int32_t n, int32_t k) const;
  bool operator==(const SingleCtaClusterRange&) const = default;
};

struct SingleCtaClusterRule {
  std::vector<SingleCtaClusterRange> ranges;
  bool contains(int32_t m, int32_t n, int32_t k) const;
  bool operator==(const SingleCtaClusterRule&) const = default;
  // "FROM-TO[:NxK+NxK...];..." (e.g. "1-64;129-768:5248x1024+1024x1024;769-1535"; no commas, so
  // the spec passes through the GPU scripts' VAR=VALUE,VAR=VALUE lists); "none" or "" is the empty
  // rule. Nothing on a malformed spec (from < 1, to < from, a bad number or separator).
  static std::optional<SingleCtaClusterRule> parse(std::string_view spec);
  std::string to_string() const;  // the spec parse reads; "none" for the empty rule
};

}  // namespace laya::cuda
