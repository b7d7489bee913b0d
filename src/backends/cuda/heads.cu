#include "backends/cuda/heads.cuh"

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"

namespace laya::cuda {

namespace {

template <class T>
__global__ void small_linear_kernel(SmallLinearParams<T> p) {
  using H = dev::Half16<T>;
  dev::pdl_prologue();
  const int lane = threadIdx.x & 31;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + (threadIdx.x >> 5);
  if (o >= static_cast<int64_t>(p.rows) * p.n) return;
  const int64_t r = o / p.n;
  const int n = static_cast<int>(o % p.n);
  const T* a = p.in + r * p.ld_in;
  const T* w = p.w + static_cast<int64_t>(n) * p.k;
  float s = 0.f;
  for (int i = lane; i < p.k; i += 32) s = fmaf(H::to_float(a[i]), H::to_float(w[i]), s);
  s = dev::warp_sum(s);
  if (lane != 0) return;
  float v = dev::round16<T>(__fadd_rn(s, H::to_float(p.bias[n])));
  if (p.gelu) v = dev::round16<T>(dev::gelu_erf(v));
  p.out[o] = H::from_float(v);
  if (p.out_f32 != nullptr) p.out_f32[o] = v;
}

template <class T>
__global__ void features_kernel(FeaturesParams<T> p) {
  using H = dev::Half16<T>;
  dev::pdl_prologue();
  const int s = blockIdx.x;
  const int lane = threadIdx.x;
  const int ms = p.marker_offsets[s], me = p.marker_offsets[s + 1];
  const int n = me - ms;
  for (int k = ms + lane; k < me; k += 32) p.logits_out[k] = H::to_float(p.logits[k]);
  if (s == 0)  // padding markers: finite values, never read by the host
    for (int k = p.marker_offsets[p.row_slots] + lane; k < p.markers_pad; k += 32)
      p.logits_out[k] = H::to_float(p.logits[k]);
  const int rs = p.row_offsets[s], re = p.row_offsets[s + 1];
  T* dst = p.act_in + static_cast<int64_t>(s) * (p.d + 4);
  for (int e = lane; e < p.d; e += 32)
    dst[e] = re > rs ? H::from_float(p.h[static_cast<int64_t>(rs) * p.d + e]) : H::from_float(0.f);
  if (lane != 0) return;
  float f[4] = {0.f, 0.f, 0.f, 0.f};
  if (n > 0) {
    float mx = -INFINITY;
    for (int k = ms; k < me; ++k) mx = fmaxf(mx, H::to_float(p.logits[k]));
    float sum = 0.f;
    for (int k = ms; k < me; ++k) sum += expf(H::to_float(p.logits[k]) - mx);
    float top1 = 0.f, top2 = 0.f, ent = 0.f;
    for (int k = ms; k < me; ++k) {
      const float pk = expf(H::to_float(p.logits[k]) - mx) / sum;
      if (pk > top1) {
        top2 = top1;
        top1 = pk;
      } else if (pk > top2) {
        top2 = pk;
      }
      ent += pk * logf(fmaxf(pk, 1e-9f));
    }
    const float kf = static_cast<float>(n < 2 ? 2 : n);
    f[0] = top1;
    f[1] = top1 - top2;
    f[2] = -ent / logf(kf);
    f[3] = kf / 255.0f;
  }
  for (int i = 0; i < 4; ++i) dst[p.d + i] = H::from_float(f[i]);
}

// One block per listed row; d is a multiple of 8 (checked at launch), so rows move in 16-byte
// (fp32: 2 x 16-byte) pieces.
template <class T>
__global__ void gather_rows_kernel(GatherRowsParams<T> p) {
  dev::pdl_prologue();
  const int64_t i = blockIdx.x;
  const int tok = p.index[i];
  const int chunks = p.d / 8;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += static_cast<int>(blockDim.x)) {
    float4 x0 = make_float4(0.f, 0.f, 0.f, 0.f), x1 = x0;
    uint4 a = make_uint4(0u, 0u, 0u, 0u);
    if (tok >= 0) {
      const float4* xs = reinterpret_cast<const float4*>(p.x + static_cast<int64_t>(tok) * p.d) + 2 * c;
      x0 = xs[0];
      x1 = xs[1];
      a = reinterpret_cast<const uint4*>(p.a + static_cast<int64_t>(tok) * p.d)[c];
    }
    float4* xd = reinterpret_cast<float4*>(p.x_out + i * p.d) + 2 * c;
    xd[0] = x0;
    xd[1] = x1;
    reinterpret_cast<uint4*>(p.a_out + i * p.d)[c] = a;
  }
}

__global__ void scatter_rows_kernel(ScatterRowsParams p) {
  dev::pdl_prologue();
  const int64_t i = blockIdx.x;
  const int tok = p.index[i];
  if (tok < 0) return;
  const float4* src = reinterpret_cast<const float4*>(p.x_in + i * p.d);
  float4* dst = reinterpret_cast<float4*>(p.x + static_cast<int64_t>(tok) * p.d);
  for (int c = static_cast<int>(threadIdx.x); c < p.d / 4; c += static_cast<int>(blockDim.x)) dst[c] = src[c];
}

}  // namespace

template <class T>
void launch_gather_rows(const GatherRowsParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.index && p.x && p.a && p.x_out && p.a_out && p.rows >= 0 && p.d > 0 && p.d % 8 == 0,
               ErrorKind::internal, "gather_rows: bad parameters");
  if (p.rows == 0) return;
  launch_kernel(gather_rows_kernel<T>, static_cast<unsigned>(p.rows), 128, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

void launch_scatter_rows(const ScatterRowsParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.index && p.x_in && p.x && p.rows >= 0 && p.d > 0 && p.d % 4 == 0, ErrorKind::internal,
               "scatter_rows: bad parameters");
  if (p.rows == 0) return;
  launch_kernel(scatter_rows_kernel, static_cast<unsigned>(p.rows), 128, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_small_linear(const SmallLinearParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.in && p.w && p.bias && p.out && p.rows >= 0 && p.n > 0 && p.k > 0 && p.ld_in >= p.k,
               ErrorKind::internal, "small_linear: bad parameters");
  const int64_t warps = static_cast<int64_t>(p.rows) * p.n;
  if (warps == 0) return;
  launch_kernel(small_linear_kernel<T>, static_cast<unsigned>((warps + 7) / 8), 256, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_features(const FeaturesParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.logits && p.marker_offsets && p.row_offsets && p.h && p.act_in && p.logits_out && p.row_slots > 0 &&
                   p.d > 0,
               ErrorKind::internal, "features: bad parameters");
  launch_kernel(features_kernel<T>, static_cast<unsigned>(p.row_slots), 32, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

#define LAYA_INSTANTIATE_HEADS(T)                                                    \
  template void launch_small_linear<T>(const SmallLinearParams<T>&, cudaStream_t); \
  template void launch_features<T>(const FeaturesParams<T>&, cudaStream_t);        \
  template void launch_gather_rows<T>(const GatherRowsParams<T>&, cudaStream_t);
LAYA_FOR_HALF16(LAYA_INSTANTIATE_HEADS)

}  // namespace laya::cuda
