// The 16-bit types of the two precision modes (precision.h) and what the kernels do with them:
// conversions with round-to-nearest-even, packed pairs, and the tensor-core mma on them.
// Device code only; every kernel that reads or writes 16-bit activations is a template on T.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "backends/cuda/common.cuh"

// Explicit instantiation of a launcher for both 16-bit types: LAYA_FOR_HALF16(INSTANTIATE) with
// INSTANTIATE(T) expanding to one `template ...;` line.
#define LAYA_FOR_HALF16(X) \
  X(__nv_bfloat16)         \
  X(__half)

namespace laya::cuda::dev {

template <class T>
struct Half16;

template <>
struct Half16<__nv_bfloat16> {
  using Pair = __nv_bfloat162;
  static __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __device__ __forceinline__ __nv_bfloat16 from_float(float v) { return __float2bfloat16_rn(v); }
  static __device__ __forceinline__ float2 to_float2(Pair v) { return __bfloat1622float2(v); }
  static __device__ __forceinline__ Pair from_float2(float a, float b) { return __floats2bfloat162_rn(a, b); }
};

template <>
struct Half16<__half> {
  using Pair = __half2;
  static __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
  static __device__ __forceinline__ __half from_float(float v) { return __float2half_rn(v); }
  static __device__ __forceinline__ float2 to_float2(Pair v) { return __half22float2(v); }
  static __device__ __forceinline__ Pair from_float2(float a, float b) { return __floats2half2_rn(a, b); }
};

// x rounded to T and back: what an op of PyTorch in dtype T returns, seen in fp32.
template <class T>
__device__ __forceinline__ float round16(float x) {
  return Half16<T>::to_float(Half16<T>::from_float(x));
}

// PyTorch's exact GELU on a tensor of dtype T, seen in fp32: T(gelu(x)) (gelu_erf, common.cuh).
template <class T>
__device__ __forceinline__ float gelu16(float x) {
  return round16<T>(gelu_erf(x));
}

// (lo, hi) rounded to T and packed into one 32-bit register (an mma A/B fragment element pair).
template <class T>
__device__ __forceinline__ uint32_t pack16(float lo, float hi) {
  typename Half16<T>::Pair v = Half16<T>::from_float2(lo, hi);
  return *reinterpret_cast<uint32_t*>(&v);
}

}  // namespace laya::cuda::dev
