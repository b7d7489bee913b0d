// LayerNorm family: embedding + LayerNorm, residual add + LayerNorm, type embedding + LayerNorm,
// marker gather + LayerNorm. fp32 math, one warp per row, d a multiple of 64 and <= 1024.
// Host-includable: declarations only.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

// x = LN(table[ids]) * weight (fp32, no bias); y = bf16(x).
struct EmbedLnParams {
  const int32_t* ids = nullptr;
  const __half* table = nullptr;  // [vocab, d], exact fp16 checkpoint values
  const float* weight = nullptr;
  float* x = nullptr;             // [tokens, d]
  __nv_bfloat16* y = nullptr;     // [tokens, d]
  int32_t tokens = 0, d = 0, vocab = 0;
  float eps = 1e-5f;
};
void launch_embed_ln(const EmbedLnParams& p, cudaStream_t stream);

// v = x + float(add) (stored back into x when add is set); n = LN(v) * weight (+ bias) when weight
// is set, else n = v; y = bf16(n) when y is set; norm_out = n when norm_out is set.
struct AddLnParams {
  float* x = nullptr;
  const __nv_bfloat16* add = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  __nv_bfloat16* y = nullptr;
  float* norm_out = nullptr;
  int32_t tokens = 0, d = 0;
  float eps = 1e-5f;
};
void launch_add_ln(const AddLnParams& p, cudaStream_t stream);

// x += type_emb[qtypes[tok_row[t]]]; y = bf16(LN(x) * weight + bias).
struct TypeLnParams {
  float* x = nullptr;
  const float* type_emb = nullptr;  // [3, d]
  const int32_t* tok_row = nullptr;
  const int32_t* qtypes = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  __nv_bfloat16* y = nullptr;
  int32_t tokens = 0, d = 0;
  float eps = 1e-5f;
};
void launch_type_ln(const TypeLnParams& p, cudaStream_t stream);

// y[k] = bf16(LN(x[marker_tok[k]]) * weight + bias) for k < markers.
struct GatherLnParams {
  const float* x = nullptr;
  const int32_t* marker_tok = nullptr;
  const float* weight = nullptr;
  const float* bias = nullptr;
  __nv_bfloat16* y = nullptr;
  int32_t markers = 0, d = 0, tokens = 0;
  float eps = 1e-5f;
};
void launch_gather_ln(const GatherLnParams& p, cudaStream_t stream);

}  // namespace laya::cuda
