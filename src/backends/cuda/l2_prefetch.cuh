// Constant memory a later kernel reads (a LayerNorm weight, RoPE table rows, the first k-tiles of a
// GEMM's W), sent to L2 by threads of an earlier kernel that have nothing else to do. They are read
// once a layer, so the ≈ 25 MB of weights streaming through L2 in between evict them; where a
// cuBLASLt GEMM precedes their reader nothing hides their DRAM round trip (docs/benchmarks/cuda.md
// items 143-146). Hints only: `prefetch.global.L2` changes no value.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#include "backends/cuda/common.cuh"
#endif

namespace laya::cuda {

// `rows` rows of `stride` bytes, of which the first `row_lines` 128-byte lines are sent; a
// contiguous span is one row.
struct L2Span {
  const void* ptr = nullptr;
  int32_t rows = 0;
  int32_t row_lines = 0;
  int64_t stride = 0;
};
constexpr int32_t kMaxL2Spans = 8;
constexpr int32_t kMaxL2Lines = 1 << 24;  // 2 GB: far beyond any plan, and the lines' int32 numbering safe
// Up to kMaxL2Spans spans, numbered as one sequence of lines (end[i]: the lines of spans 0..i).
// A kernel argument of its own where it is carried: growing a kernel's parameter struct changed
// its register allocation before (item 143).
struct L2Prefetch {
  L2Span spans[kMaxL2Spans];
  int32_t end[kMaxL2Spans] = {};
  int32_t count = 0;

  // Appends a span (ignored when it has no lines); false, the plan unchanged, when it is full or
  // would pass kMaxL2Lines.
  bool add(const void* ptr, int32_t rows, int32_t row_lines, int64_t stride) {
    if (ptr == nullptr || rows <= 0 || row_lines <= 0) return true;
    const int64_t total = int64_t{lines()} + int64_t{rows} * row_lines;
    if (count == kMaxL2Spans || total > kMaxL2Lines) return false;
    spans[count] = L2Span{ptr, rows, row_lines, stride};
    end[count] = static_cast<int32_t>(total);
    ++count;
    return true;
  }
  // Contiguous bytes (rounded up to whole lines).
  bool add_bytes(const void* ptr, int64_t bytes) {
    const int64_t n = (bytes + 127) / 128;
    return n > kMaxL2Lines ? false : add(ptr, 1, static_cast<int32_t>(n), 0);
  }
  int32_t lines() const { return count > 0 ? end[count - 1] : 0; }
};

// Host-side check of a plan a launcher received: well-formed spans, counts that add up.
inline bool l2_prefetch_valid(const L2Prefetch& p) {
  if (p.count < 0 || p.count > kMaxL2Spans) return false;
  int64_t lines = 0;
  for (int32_t i = 0; i < p.count; ++i) {
    const L2Span& s = p.spans[i];
    if (s.ptr == nullptr || s.rows <= 0 || s.row_lines <= 0) return false;
    if (s.rows > 1 && s.stride < int64_t{s.row_lines} * 128) return false;
    lines += int64_t{s.rows} * s.row_lines;
    if (lines != p.end[i] || lines > kMaxL2Lines) return false;
  }
  return true;
}

#if defined(__CUDACC__)
namespace dev {

// Lines first, first + step, ... of the plan's sequence, one prefetch each.
__device__ __forceinline__ void prefetch_plan(const L2Prefetch& p, int32_t first, int32_t step) {
  int32_t span = 0, begin = 0;
  for (int32_t l = first; p.count > 0 && l < p.end[p.count - 1]; l += step) {
    while (l >= p.end[span]) begin = p.end[span++];
    const L2Span& s = p.spans[span];
    const int32_t r = (l - begin) / s.row_lines;
    const int32_t c = l - begin - r * s.row_lines;
    prefetch_l2(static_cast<const char*>(s.ptr) + r * s.stride + int64_t{c} * 128);
  }
}

}  // namespace dev
#endif

}  // namespace laya::cuda
