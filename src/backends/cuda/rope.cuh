// Rotary position embedding (rotate-half / NeoX layout, head_dim 64) applied in place to the q and
// k parts (or the k part only) of a packed [tokens, 3*heads*64] buffer of 16-bit T (the precision
// mode's type), fp32 math with unfused multiplies and fp32 tables, as transformers'
// apply_rotary_pos_emb does under autocast, then one rounding: T((q*cos) + (rotate_half(q)*sin)).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

template <class T>
struct RopeParams {
  T* qkv = nullptr;              // [tokens, 3 * heads * 64]
  // [tokens], position in the row (clamped to table_len - 1). Read before the programmatic wait: it
  // must be complete before the kernel before this one started (the engine's staging block is).
  const int32_t* pos = nullptr;
  const float* cos = nullptr;    // [table_len, 32]
  const float* sin = nullptr;    // [table_len, 32]
  int32_t tokens = 0, heads = 0, table_len = 0;
  // true: rotate only the k part (the engine's pre-rotation of K, once per layer, for the attention
  // kernel's AttentionParams::k_rotated mode); false: q and k.
  bool k_only = false;
};
template <class T>
void launch_rope(const RopeParams<T>& p, cudaStream_t stream);

}  // namespace laya::cuda
