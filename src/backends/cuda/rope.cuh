// Rotary position embedding (rotate-half / NeoX layout, head_dim 64) applied in place to the q and
// k parts (or the k part only) of a packed [tokens, 3*heads*64] bf16 buffer, fp32 math with unfused multiplies, as
// transformers' apply_rotary_pos_emb does under autocast: bf16((q*cos) + (rotate_half(q)*sin)).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

struct RopeParams {
  __nv_bfloat16* qkv = nullptr;  // [tokens, 3 * heads * 64]
  const int32_t* pos = nullptr;  // [tokens], position in the row (clamped to table_len - 1)
  const float* cos = nullptr;    // [table_len, 32]
  const float* sin = nullptr;    // [table_len, 32]
  int32_t tokens = 0, heads = 0, table_len = 0;
  // true: rotate only the k part (the engine's pre-rotation of K, once per layer, for the attention
  // kernel's AttentionParams::k_rotated mode); false: q and k.
  bool k_only = false;
};
void launch_rope(const RopeParams& p, cudaStream_t stream);

}  // namespace laya::cuda
