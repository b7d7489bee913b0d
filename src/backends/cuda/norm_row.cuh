// The LayerNorm row kernels' per-row building blocks (device code: include from .cu files only): one
// warp per row, the lane holding pairs 2 lane + 64 j of it in registers, fp32 math. Shared by
// norm.cu's kernels and by the small GEMM, which runs the add+LayerNorm after its own output in
// the same kernel (small_gemm.cuh): the same inlined code gives bitwise the same rows.
#pragma once

#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/norm.cuh"

namespace laya::cuda::dev {

constexpr int kMaxPairs = kMaxHidden / 64;  // pairs per lane

// The lane's share of a LayerNorm's weight and optional bias, loaded when a kernel starts so the
// loads overlap the row's loads and reductions instead of following them.
struct Affine {
  float w[2 * kMaxPairs], b[2 * kMaxPairs];
  bool has_bias;
};

__device__ __forceinline__ void load_affine(Affine& a, const float* w, const float* b, int np, int lane) {
  a.has_bias = b != nullptr;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const int e = 2 * lane + 64 * j;
      const float2 ww = *reinterpret_cast<const float2*>(w + e);
      a.w[2 * j] = ww.x;
      a.w[2 * j + 1] = ww.y;
      const float2 bb = a.has_bias ? *reinterpret_cast<const float2*>(b + e) : make_float2(0.f, 0.f);
      a.b[2 * j] = bb.x;
      a.b[2 * j + 1] = bb.y;
    }
}

// Normalises the lane's pairs v[0..2*np) of one row in place: (v - mean) * rstd * w (+ b).
__device__ __forceinline__ void ln_inplace(float (&v)[2 * kMaxPairs], int np, int d, const Affine& af, float eps) {
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) s += v[2 * j] + v[2 * j + 1];
  const float mean = warp_sum(s) / static_cast<float>(d);
  float q = 0.f;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const float a = v[2 * j] - mean, c = v[2 * j + 1] - mean;
      q += a * a + c * c;
    }
  const float var = warp_sum(q) / static_cast<float>(d);
  const float rstd = rsqrtf(var + eps);
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      float a = __fmul_rn(__fmul_rn(v[2 * j] - mean, rstd), af.w[2 * j]);
      float c = __fmul_rn(__fmul_rn(v[2 * j + 1] - mean, rstd), af.w[2 * j + 1]);
      if (af.has_bias) {
        a = __fadd_rn(a, af.b[2 * j]);
        c = __fadd_rn(c, af.b[2 * j + 1]);
      }
      v[2 * j] = a;
      v[2 * j + 1] = c;
    }
}

template <class T>
__device__ __forceinline__ void store16(T* dst, const float (&v)[2 * kMaxPairs], int np, int lane) {
  using Pair = typename Half16<T>::Pair;
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np)
      *reinterpret_cast<Pair*>(dst + 2 * lane + 64 * j) = Half16<T>::from_float2(v[2 * j], v[2 * j + 1]);
}

__device__ __forceinline__ void store_f32(float* dst, const float (&v)[2 * kMaxPairs], int np, int lane) {
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) *reinterpret_cast<float2*>(dst + 2 * lane + 64 * j) = make_float2(v[2 * j], v[2 * j + 1]);
}

__device__ __forceinline__ void load_f32(const float* src, float (&v)[2 * kMaxPairs], int np, int lane) {
#pragma unroll
  for (int j = 0; j < kMaxPairs; ++j)
    if (j < np) {
      const float2 a = *reinterpret_cast<const float2*>(src + 2 * lane + 64 * j);
      v[2 * j] = a.x;
      v[2 * j + 1] = a.y;
    }
}

// kForm: which parameters the instance serves (the caller's choice, see launch_add_ln); the same
// arithmetic in each. kAnyForm: all of them. The lean forms take no partials: kWeightForm (the
// encoder's: a LayerNorm weight, no bias) holds 90 registers instead of 179, so five blocks of 4 rows
// fit on an SM instead of two; kWeightBiasForm (the decision layers': weight and bias) 126, four
// blocks. Large buckets are bandwidth-bound and need the rows in flight; small ones are
// latency-bound and were measured slower with the lean form (items 29 and 48).
enum AddLnForm : int { kAnyForm = 0, kWeightForm = 1, kWeightBiasForm = 2 };

// One row of add_ln_kernel (norm.cuh's AddLnParams) by one warp.
template <class T, int kForm>
__device__ __forceinline__ void add_ln_row(const AddLnParams<T>& p, int row, int lane) {
  constexpr bool kLean = kForm != kAnyForm;
  const int np = p.d / 64;
  Affine af;
  if (kLean || p.weight != nullptr) load_affine(af, p.weight, kForm == kWeightForm ? nullptr : p.bias, np, lane);
  float* x = p.x + static_cast<size_t>(row) * p.d;
  float v[2 * kMaxPairs];
  load_f32(x, v, np, lane);
  if (p.add != nullptr) {
    using Pair = typename Half16<T>::Pair;
    const T* a = p.add + static_cast<size_t>(row) * p.d;
#pragma unroll
    for (int j = 0; j < kMaxPairs; ++j)
      if (j < np) {
        const float2 f = Half16<T>::to_float2(*reinterpret_cast<const Pair*>(a + 2 * lane + 64 * j));
        v[2 * j] = __fadd_rn(v[2 * j], f.x);
        v[2 * j + 1] = __fadd_rn(v[2 * j + 1], f.y);
      }
    store_f32(x, v, np, lane);
  } else if (!kLean && p.add_parts != nullptr) {
    // Each part's loads for the whole row are issued together (one memory round trip per part,
    // not one per pair), then added in part order.
    const size_t part = static_cast<size_t>(p.tokens) * p.d;
    const float* a = p.add_parts + static_cast<size_t>(row) * p.d;
    float sum[2 * kMaxPairs];
    load_f32(a, sum, np, lane);
    for (int s = 1; s < p.parts; ++s) {
      float f[2 * kMaxPairs];
      load_f32(a + s * part, f, np, lane);
#pragma unroll
      for (int j = 0; j < 2 * kMaxPairs; ++j)
        if (j < 2 * np) sum[j] = __fadd_rn(sum[j], f[j]);
    }
#pragma unroll
    for (int j = 0; j < 2 * kMaxPairs; ++j)
      if (j < 2 * np) v[j] = __fadd_rn(v[j], round16<T>(sum[j]));
    store_f32(x, v, np, lane);
  }
  if (kLean || p.weight != nullptr) ln_inplace(v, np, p.d, af, p.eps);
  if (p.y != nullptr) store16(p.y + static_cast<size_t>(row) * p.d, v, np, lane);
  if (p.norm_out != nullptr) store_f32(p.norm_out + static_cast<size_t>(row) * p.d, v, np, lane);
}

}  // namespace laya::cuda::dev
