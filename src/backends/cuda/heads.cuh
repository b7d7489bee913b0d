// Decision-head tail kernels: small linears (scorer output, action head; one warp per output,
// fp32 accumulation, bias added in fp32 then ONE bf16 rounding, as autocast addmm does; optional
// exact GELU applied to the rounded value and rounded again) and the act-head features (softmax of
// a row's raw bf16 logits: top1, top1 - top2, normalised entropy, k/255, after the CLS hidden
// state).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

struct SmallLinearParams {
  const __nv_bfloat16* in = nullptr;  // [rows, ld_in], first k columns used
  const __nv_bfloat16* w = nullptr;   // [n, k]
  const __nv_bfloat16* bias = nullptr;  // [n]
  __nv_bfloat16* out = nullptr;       // [rows, n]
  float* out_f32 = nullptr;           // optional [rows, n]: float of the bf16 result
  int32_t rows = 0, n = 0, k = 0, ld_in = 0;
  bool gelu = false;
};
void launch_small_linear(const SmallLinearParams& p, cudaStream_t stream);

struct FeaturesParams {
  const __nv_bfloat16* logits = nullptr;  // [markers_pad] raw scorer output
  const int32_t* marker_offsets = nullptr;  // [row_slots + 1]
  const int32_t* row_offsets = nullptr;     // [row_slots + 1]
  const float* h = nullptr;                 // [tokens, d] head output
  __nv_bfloat16* act_in = nullptr;          // [row_slots, d + 4]
  float* logits_out = nullptr;              // [markers_pad]
  int32_t row_slots = 0, markers_pad = 0, d = 0;
};
void launch_features(const FeaturesParams& p, cudaStream_t stream);

}  // namespace laya::cuda
