// Activations on bf16 tensors, each rounding like PyTorch's bf16 ops under autocast:
// GeGLU out = bf16(bf16(gelu(a)) * g) for up = [a | g] (first half input, second half gate);
// GELU in place = bf16(gelu(x)). GELU is the exact erf form.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

struct GegluParams {
  const __nv_bfloat16* up = nullptr;  // [rows, 2 * inter]
  __nv_bfloat16* out = nullptr;       // [rows, inter]
  int32_t rows = 0, inter = 0;        // inter a multiple of 8
};
void launch_geglu(const GegluParams& p, cudaStream_t stream);

struct GeluParams {
  __nv_bfloat16* data = nullptr;
  int64_t n = 0;
};
void launch_gelu(const GeluParams& p, cudaStream_t stream);

}  // namespace laya::cuda
