// Exact conversions between the checkpoint's storage types and compute types.
//
// f16/bf16 -> f32 are exact (subnormals, signed zeros, Inf and NaN payloads preserved).
// f32 -> bf16 and f32 -> f16 round to nearest, ties to even; NaN stays NaN (quieted), Inf stays Inf,
// f16 overflow goes to Inf. f16 -> bf16 is f16 -> f32 (exact) then one RNE rounding.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "checkpoint/safetensors.h"

namespace laya::checkpoint {

float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);
uint16_t f32_to_f16(float f);
uint16_t f16_to_bf16(uint16_t h);

// Whole-tensor conversions; `out` must hold exactly t.numel() elements (throws internal otherwise).
void to_f32(const TensorView& t, std::span<float> out);
std::vector<float> to_f32(const TensorView& t);
void to_bf16(const TensorView& t, std::span<uint16_t> out);
// FP16 bits of a tensor: F16 copied, F32 rounded (RNE), BF16 via f32 (exact) then RNE.
void to_f16(const TensorView& t, std::span<uint16_t> out);

}  // namespace laya::checkpoint
