// The model's weights resident on the GPU once, in the official CUDA precision policy of the
// precision mode (precision.h): every matrix and Linear bias in the mode's 16-bit type — bf16
// rounded (RNE) from the checkpoint value (what bf16 autocast feeds the GEMMs), or the exact fp16
// checkpoint value — the token embedding in its exact fp16, every norm weight/bias and type_emb in
// fp32, and the rotary tables computed natively in fp32 (HF computes them in fp32 with autocast
// disabled and multiplies in fp32: nothing to round). One device allocation holds all of it.
// Matrix pointers are untyped (the type is the mode's); kernels see them through as<T>().
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "backends/cuda/precision.h"
#include "checkpoint/checkpoint.h"

namespace laya::cuda {

struct DeviceEncoderLayer {
  const float* attn_norm = nullptr;  // null on layer 0 (Identity)
  const float* mlp_norm = nullptr;
  const void *wqkv = nullptr, *wo = nullptr, *wi = nullptr, *mlp_wo = nullptr;
  bool global = true;
};

struct DeviceHeadLayer {
  const float *n1_w = nullptr, *n1_b = nullptr, *n2_w = nullptr, *n2_b = nullptr;
  const void *in_w = nullptr, *in_b = nullptr, *out_w = nullptr, *out_b = nullptr;
  const void *l1_w = nullptr, *l1_b = nullptr, *l2_w = nullptr, *l2_b = nullptr;
};

struct DeviceWeights {
  const __half* tok_emb = nullptr;
  const float* emb_norm = nullptr;
  std::vector<DeviceEncoderLayer> layers;
  const float* final_norm = nullptr;
  const float* type_emb = nullptr;
  std::vector<DeviceHeadLayer> head;
  const float *scorer_norm_w = nullptr, *scorer_norm_b = nullptr;
  const void *scorer_fc1_w = nullptr, *scorer_fc1_b = nullptr, *scorer_fc2_w = nullptr, *scorer_fc2_b = nullptr;
  const void *act_fc1_w = nullptr, *act_fc1_b = nullptr, *act_fc2_w = nullptr, *act_fc2_b = nullptr;
  const float *rope_global_cos = nullptr, *rope_global_sin = nullptr;  // [rope_len, 32]
  const float *rope_local_cos = nullptr, *rope_local_sin = nullptr;
  int32_t rope_len = 0;
  Precision precision = Precision::bf16;  // the type of every `const void*` matrix and bias above

  void* block = nullptr;  // the one device allocation (owned by the backend)
  int64_t bytes = 0;
};

// A matrix or bias of DeviceWeights as the mode's 16-bit type T.
template <class T>
const T* as(const void* p) {
  return static_cast<const T*>(p);
}

// The engine's RoPE table for 64-dim heads, [max_pos, 32]: the first half of each row of a
// [max_pos, 64] HF table (cpu::make_rope_table; both halves are equal).
std::vector<float> rope_half_table(const std::vector<float>& full, int32_t max_pos);

// Bytes the weights will take on the device (to check free memory before allocating; the same in
// both precision modes).
int64_t device_weight_bytes(const checkpoint::Checkpoint& ckpt, int32_t rope_len);

// Converts and uploads every tensor (synchronously). On failure frees what it allocated and throws.
DeviceWeights upload_weights(const checkpoint::Checkpoint& ckpt, int32_t rope_len, Precision precision);
void free_weights(DeviceWeights& w) noexcept;

}  // namespace laya::cuda
