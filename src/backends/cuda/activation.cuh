// Activations on 16-bit tensors (T: __nv_bfloat16 or __half, the precision mode's type), each
// rounding like PyTorch's ops in that dtype under autocast:
// GeGLU out = T(T(gelu(a)) * g) for up = [a | g] (first half input, second half gate);
// GELU in place = T(gelu(x)). GELU is the exact erf form.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "backends/cuda/l2_prefetch.cuh"

namespace laya::cuda {

template <class T>
struct GegluParams {
  const T* up = nullptr;          // [rows, 2 * inter]
  T* out = nullptr;               // [rows, inter]
  int32_t rows = 0, inter = 0;    // inter a multiple of 8
  // bf16 only: T(gelu(a)) looked up in this table (launch_fill_gelu_lut, gelu_lut.cuh) where it
  // holds a; the same bits as the computed form (null) — docs/benchmarks/cuda.md item 114.
  const uint16_t* gelu_lut = nullptr;
};
// `ahead`: lines sent to L2 by the grid's threads past the last column (those of each row's last
// block: inter / 8 need not be a multiple of the block), where they exist — with the English
// checkpoint's inter = 2,624, 56 a row. Hints for the kernels after this one (l2_prefetch.cuh).
template <class T>
void launch_geglu(const GegluParams<T>& p, cudaStream_t stream, const L2Prefetch& ahead = {});

// The bf16 GELU table (gelu_lut.cuh): 20 exponents x 128 mantissas per sign, 10 KB.
constexpr int kGeluLutEntries = 2 * 20 * 128;
constexpr int kGeluLutBytes = kGeluLutEntries * 2;
// Fills `lut` (kGeluLutEntries device uint16) with T(gelu(x)) of each entry's x; asynchronous.
void launch_fill_gelu_lut(uint16_t* lut, cudaStream_t stream);

// The bf16 GELU of every 16-bit pattern: entry b = the bits of T(gelu(x)) for the bf16 x whose bits
// are b (NaN patterns: a NaN), 128 KB — the fused GeGLU GEMM's lookups outside the shared table.
constexpr int kGeluAllEntries = 1 << 16;
constexpr int kGeluAllBytes = kGeluAllEntries * 2;
// Fills `table` (kGeluAllEntries device uint16); asynchronous.
void launch_fill_gelu_all(uint16_t* table, cudaStream_t stream);

// In place: x = T(gelu(x)). The engine applies this inside small_linear (SmallLinearParams::
// gelu_in); the kernel stays as that path's bitwise reference in the tests.
template <class T>
struct GeluParams {
  T* data = nullptr;
  int64_t n = 0;
};
template <class T>
void launch_gelu(const GeluParams<T>& p, cudaStream_t stream);

}  // namespace laya::cuda
