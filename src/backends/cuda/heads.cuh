// Decision-head tail kernels, on 16-bit T (the precision mode's type): small linears (scorer
// output, action head; one warp per output, fp32 accumulation, bias added in fp32 then ONE rounding
// to T, as autocast addmm does; optional exact GELU applied to the rounded value and rounded again)
// and the act-head features (softmax of a row's raw T logits: top1, top1 - top2, normalised
// entropy, k/255, after the CLS hidden state), and the gather / scatter of the rows the heads read
// (the pruned last decision layer runs on those rows only).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

template <class T>
struct SmallLinearParams {
  const T* in = nullptr;              // [rows, ld_in], first k columns used
  const T* w = nullptr;               // [n, k]
  const T* bias = nullptr;            // [n]
  T* out = nullptr;                   // [rows, n]
  float* out_f32 = nullptr;           // optional [rows, n]: float of the rounded result
  int32_t rows = 0, n = 0, k = 0, ld_in = 0;
  bool gelu = false;
  // The inputs go through T(gelu(x)) first, as launch_gelu would have written them in place (the
  // scorer's hidden layer: one kernel and one round trip of [rows, k] fewer; the same values). Each
  // output recomputes GELU on its inputs: meant for n = 1, where every input is read once.
  bool gelu_in = false;
};
template <class T>
void launch_small_linear(const SmallLinearParams<T>& p, cudaStream_t stream);

template <class T>
struct FeaturesParams {
  const T* logits = nullptr;                // [markers_pad] raw scorer output
  const int32_t* marker_offsets = nullptr;  // [row_slots + 1]
  const int32_t* row_offsets = nullptr;     // [row_slots + 1]
  const float* h = nullptr;                 // [tokens, d] head output
  bool cls_at_slot = false;                 // h holds row s's [CLS] state at row s (the pruned last
                                            // decision layer's compact rows), not at its first token
  T* act_in = nullptr;                      // [row_slots, d + 4]
  float* logits_out = nullptr;              // [markers_pad]
  int32_t row_slots = 0, markers_pad = 0, d = 0;
};
template <class T>
void launch_features(const FeaturesParams<T>& p, cudaStream_t stream);

// Compact copies of the rows listed in `index` (token indices, -1 = an empty slot): row i of
// x_out / a_out is row index[i] of x / a, zeros for -1.
template <class T>
struct GatherRowsParams {
  const int32_t* index = nullptr;  // [rows]
  const float* x = nullptr;        // [tokens, d]
  const T* a = nullptr;            // [tokens, d]
  float* x_out = nullptr;          // [rows, d]
  T* a_out = nullptr;              // [rows, d]
  int32_t rows = 0, d = 0;
};
template <class T>
void launch_gather_rows(const GatherRowsParams<T>& p, cudaStream_t stream);

// The inverse for the fp32 rows: row index[i] of x = row i of x_in (slots of -1 skipped; the
// indices of one call are distinct, so no two writes meet).
struct ScatterRowsParams {
  const int32_t* index = nullptr;  // [rows]
  const float* x_in = nullptr;     // [rows, d]
  float* x = nullptr;              // [tokens, d]
  int32_t rows = 0, d = 0;
};
void launch_scatter_rows(const ScatterRowsParams& p, cudaStream_t stream);

}  // namespace laya::cuda
