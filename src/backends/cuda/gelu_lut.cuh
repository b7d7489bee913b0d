// bf16 GELU by table: T(gelu(x)) for every bf16 x with |x| in [2^-16, 16), both signs — 20
// exponents x 128 mantissas per sign, 10 KB. A bf16 activation is exactly one of those patterns, so
// a lookup gives the same bits as computing gelu16<bf16>(x) (half16.cuh) whenever the table was
// filled with that same device function (gelu_lut_entry below); outside the range geglu_kernel
// computes and the fused GeGLU GEMM reads the table of every pattern (launch_fill_gelu_all,
// activation.cuh). Used by the fused GeGLU GEMM's epilogue (each CTA copies one into shared memory
// from the table of every pattern, whose entries for these patterns are the same) and
// by geglu_kernel (the engine's table in global memory, read through L1). The erf polynomial is
// most of what a GELU costs (docs/benchmarks/cuda.md items 33, 114 and 168).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>

#include "backends/cuda/activation.cuh"  // the table's size and launch_fill_gelu_lut
#include "backends/cuda/common.cuh"

namespace laya::cuda {

constexpr uint32_t kGeluLutExpLo = 127 - 16;  // the table's first bf16 biased exponent (2^-16)
constexpr int kGeluLutHalf = kGeluLutEntries / 2;  // entries per sign: exponents 2^-16 .. 2^3

namespace dev {

// The bf16 bits x of entry i (< kGeluLutEntries): negative for i >= half. Consecutive entries of
// one half are consecutive patterns (the fused GeGLU GEMM copies the table in 8-entry chunks from
// the table of every pattern).
__host__ __device__ constexpr uint32_t gelu_lut_pattern(int i) {
  return (i >= kGeluLutHalf ? 0x8000u : 0u) | ((kGeluLutExpLo << 7) + static_cast<uint32_t>(i % kGeluLutHalf));
}

// Entry i (< kGeluLutEntries) of the table: the bits of T(gelu(x)), x = gelu_lut_pattern(i).
__device__ __forceinline__ uint16_t gelu_lut_entry(int i) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(gelu_erf(__uint_as_float(gelu_lut_pattern(i) << 16))));
}

// The slot of the bf16 whose bits are the low 16 of `bits` (higher bits ignored), and whether the
// table holds it (`in`; the slot is 0 otherwise, a valid index to load and discard).
__device__ __forceinline__ uint32_t gelu_lut_slot(uint32_t bits, bool& in) {
  const uint32_t at = (bits & 0x7FFFu) - (kGeluLutExpLo << 7);  // wraps below the table
  in = at < static_cast<uint32_t>(kGeluLutHalf);
  return in ? at + ((bits >> 15) & 1u) * kGeluLutHalf : 0u;
}

}  // namespace dev

}  // namespace laya::cuda
