// LayerNorm family: embedding + LayerNorm, residual add + LayerNorm, type embedding + LayerNorm,
// marker gather + LayerNorm. fp32 math, one warp per row, d a multiple of 64 and <= 1024. T is
// the 16-bit type of the precision mode (__nv_bfloat16 or __half, precision.h) for the rounded
// outputs and the added GEMM output. Host-includable: declarations only.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

// The widest hidden size the row kernels hold in registers (one warp a row, 16 pairs a lane): the
// LayerNorm family here and the act-head features (heads.cu); the engine refuses wider checkpoints.
constexpr int32_t kMaxHidden = 1024;

// x = LN(table[ids]) * weight (fp32, no bias); y = T(x).
template <class T>
struct EmbedLnParams {
  const int32_t* ids = nullptr;
  const __half* table = nullptr;  // [vocab, d], exact fp16 checkpoint values
  const float* weight = nullptr;
  float* x = nullptr;             // [tokens, d]
  T* y = nullptr;                 // [tokens, d]
  int32_t tokens = 0, d = 0, vocab = 0;
  float eps = 1e-5f;
};
template <class T>
void launch_embed_ln(const EmbedLnParams<T>& p, cudaStream_t stream);

// v = x + float(add) (stored back into x when add is set); n = LN(v) * weight (+ bias) when weight
// is set, else n = v; y = T(n) when y is set; norm_out = n when norm_out is set.
// add_parts instead of add: add = T(part 0 + part 1 + ... (+ parts_bias)), the fp32 split-K partials
// of a GEMM (Gemm::run_partials, small_gemm's partials form) summed in order, plus the GEMM's bias if
// any, and rounded once, as cuBLASLt's reduction kernel with a BIAS epilogue would.
constexpr int32_t kMaxAddParts = 4;
// Buckets of at least this many tokens run the add+LNs without partials (the encoder's, without a
// LayerNorm bias, and the decision layers', with one) through the lean instances of the kernel
// (norm.cu; the engine's bound, LAYA_CUDA_LEAN_ADD_LN_FROM: AddLnParams::lean_from_rows). The
// general instance fits 2 blocks of 4 rows on an SM (1,056 rows a wave on 132 SMs), the lean ones
// 5 or 4. Measured on the H200 (docs/benchmarks/cuda.md items 29, 48 and 125): from 1,536 tokens
// 16x512 -0.37 ms, 3x512 -0.05; from 1,024 alone +0.034 at 1,024 tokens (one wave either way), but
// with the engine's residual GEMMs from the same bound (the add+LN then reads only x) 2x512
// -0.016, 9x128 (1,152) -0.10, 10x128 -0.11, 11x128 -0.07; from 513: 5x128-7x128 -0.03 more; from
// 129: 1x160-1x512 -0.013..-0.023 more. (Below 129 tokens the add+LNs sum partials: general form.)
constexpr int32_t kLeanAddLnFromRows = 129;
template <class T>
struct AddLnParams {
  float* x = nullptr;
  const T* add = nullptr;
  const float* add_parts = nullptr;  // [parts, tokens, d]
  int32_t parts = 0;                 // 1..kMaxAddParts
  const T* parts_bias = nullptr;     // with add_parts: the GEMM's bias [d], added to their sum before its rounding
  const float* weight = nullptr;
  const float* bias = nullptr;
  T* y = nullptr;
  float* norm_out = nullptr;
  int32_t tokens = 0, d = 0;
  float eps = 1e-5f;
  int32_t lean_from_rows = kLeanAddLnFromRows;
};
template <class T>
void launch_add_ln(const AddLnParams<T>& p, cudaStream_t stream);

// x += type_emb[qtypes[tok_row[t]]]; y = T(LN(x) * weight + bias).
template <class T>
struct TypeLnParams {
  float* x = nullptr;
  const float* type_emb = nullptr;  // [3, d]
  const int32_t* tok_row = nullptr;
  const int32_t* qtypes = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  T* y = nullptr;
  int32_t tokens = 0, d = 0;
  float eps = 1e-5f;
};
template <class T>
void launch_type_ln(const TypeLnParams<T>& p, cudaStream_t stream);

// y[k] = T(LN(x[marker_tok[k]]) * weight + bias) for k < markers.
template <class T>
struct GatherLnParams {
  const float* x = nullptr;
  const int32_t* marker_tok = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  T* y = nullptr;
  int32_t markers = 0, d = 0, tokens = 0;
  float eps = 1e-5f;
};
template <class T>
void launch_gather_ln(const GatherLnParams<T>& p, cudaStream_t stream);

}  // namespace laya::cuda
