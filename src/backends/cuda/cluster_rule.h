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

// The engine's rule for a checkpoint of hidden size d and GeGLU width inter: every GEMM of at most
// 64 rows and of 769-1,535 rows; at 129-768 rows a table by bucket size, measured on the H200 at
// every bucket size of that range for both shipped widths. d >= 1,024 (english, typed-decisions):
// the MLP input GEMM (2 inter x d, unfused GeGLU) everywhere; the attention output GEMM (d x d; the
// decision layers' out-projection has that shape too) but not at 161-192 and 321-352; also the QKV
// GEMM (3d x d) at 177-192, 289-320, 385-448 and 513-576 and the MLP output GEMM (d x inter) at
// 145-160, 225-240, 289-320, 385-448 and 641-704 (item 153: 0.007-0.054 ms a forward less at ten
// bucket sizes, lower in every round of two calls). d < 1,024 (multilingual, d = 768, where the QKV
// and MLP input GEMMs share (N, K)): the attention output GEMM everywhere, the QKV / MLP input GEMMs
// at 129-256, 289-320, 385-448 and 513-768 (item 151: nvjet's clusters faster for them at 257-512
// rows, 1x464 -0.048, 1x512 -0.050; item 153: but not at 320, 416 and 448 rows, -0.022 / -0.045 /
// -0.048). Earlier measurements: 0.2-0.4 us less a GEMM at 48 and 64 rows, mixed at 128 (item 55);
// every GEMM at 769-1,535 rows: 11x128 (1,408 tokens) -0.088 ms, 9x128 (1,152) -0.041..-0.075, 1,024
// tokens -0.007..-0.032, 768-896 and 1,280 tokens -0.012..+0.002, but 640 tokens +0.035, 256 +0.072,
// 1,664 +0.072 (item 123).
SingleCtaClusterRule default_single_cta_cluster_rule(int32_t d, int32_t inter);

}  // namespace laya::cuda
