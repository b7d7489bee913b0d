#include "backends/cuda/heads.cuh"

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/norm.cuh"

namespace laya::cuda {

namespace {

// kOutWarps warps per output (row r, column n): the dot product of k elements is split over
// 32 * kOutWarps threads, so each thread's loads are few and all in flight at once (a warp per
// output left a few loads in flight per lane: ptxas interleaves a long batch of loads with the
// products that use them). Summed per thread, per warp (tree), then over the warps in order:
// deterministic. 4-element (8-byte) loads where k, ld_in and the pointers allow, else elements.
constexpr int kOutWarps = 4;
constexpr int kSmallLinearThreads = 256;  // two outputs per block
constexpr int kPrefetch = 3;              // weight groups a thread loads before the PDL wait

template <class T>
__global__ void __launch_bounds__(kSmallLinearThreads) small_linear_kernel(SmallLinearParams<T> p) {
  using H = dev::Half16<T>;
  using Pair = typename H::Pair;
  constexpr int kPerOut = 32 * kOutWarps;
  __shared__ float partial[kSmallLinearThreads / 32];
  const int t = static_cast<int>(threadIdx.x) % kPerOut, warp = static_cast<int>(threadIdx.x) / 32;
  const int64_t o = static_cast<int64_t>(blockIdx.x) * (kSmallLinearThreads / kPerOut) + threadIdx.x / kPerOut;
  const bool valid = o < static_cast<int64_t>(p.rows) * p.n;  // uniform per output's warps
  const int64_t r = valid ? o / p.n : 0;
  const int n = valid ? static_cast<int>(o % p.n) : 0;
  const T* a = p.in + r * p.ld_in;
  const T* w = p.w + static_cast<int64_t>(n) * p.k;
  const bool vec = (p.k & 3) == 0 && (p.ld_in & 3) == 0 &&
                   ((reinterpret_cast<uintptr_t>(p.in) | reinterpret_cast<uintptr_t>(p.w)) & 7) == 0;
  const int groups = p.k / 4;
  // The thread's first kPrefetch weight groups (all of them up to k = 4 * 128 * kPrefetch) are
  // constants: loaded before the wait, they arrive while the previous kernel finishes.
  uint2 wpre[kPrefetch];
#pragma unroll
  for (int i = 0; i < kPrefetch; ++i) {
    const int g = t + i * kPerOut;
    wpre[i] = valid && vec && g < groups ? *reinterpret_cast<const uint2*>(w + 4 * g) : make_uint2(0u, 0u);
  }
  dev::pdl_prologue();
  float s = 0.f;
  if (valid) {
    if (vec) {
      // Groups t, t + kPerOut, ... in order (the prefetched ones first): the same sums as one loop.
      auto add_group = [&](int g, uint2 wv) {
        const uint2 av = *reinterpret_cast<const uint2*>(a + 4 * g);
        float2 a0 = H::to_float2(*reinterpret_cast<const Pair*>(&av.x));
        float2 a1 = H::to_float2(*reinterpret_cast<const Pair*>(&av.y));
        if (p.gelu_in) {
          a0 = make_float2(dev::gelu16<T>(a0.x), dev::gelu16<T>(a0.y));  // launch_gelu's values
          a1 = make_float2(dev::gelu16<T>(a1.x), dev::gelu16<T>(a1.y));
        }
        const float2 w0 = H::to_float2(*reinterpret_cast<const Pair*>(&wv.x));
        const float2 w1 = H::to_float2(*reinterpret_cast<const Pair*>(&wv.y));
        s = fmaf(a0.x, w0.x, s);
        s = fmaf(a0.y, w0.y, s);
        s = fmaf(a1.x, w1.x, s);
        s = fmaf(a1.y, w1.y, s);
      };
#pragma unroll
      for (int i = 0; i < kPrefetch; ++i)
        if (t + i * kPerOut < groups) add_group(t + i * kPerOut, wpre[i]);
      for (int g = t + kPrefetch * kPerOut; g < groups; g += kPerOut)
        add_group(g, *reinterpret_cast<const uint2*>(w + 4 * g));
    } else {
      for (int i = t; i < p.k; i += kPerOut) {
        const float x = H::to_float(a[i]);
        s = fmaf(p.gelu_in ? dev::gelu16<T>(x) : x, H::to_float(w[i]), s);
      }
    }
  }
  s = dev::warp_sum(s);
  if ((threadIdx.x & 31) == 0) partial[warp] = s;
  __syncthreads();
  if (!valid || t != 0) return;
  s = partial[warp];
#pragma unroll
  for (int i = 1; i < kOutWarps; ++i) s += partial[warp + i];
  float v = dev::round16<T>(__fadd_rn(s, H::to_float(p.bias[n])));
  if (p.gelu) v = dev::gelu16<T>(v);
  p.out[o] = H::from_float(v);
  if (p.out_f32 != nullptr) p.out_f32[o] = v;
}

constexpr int kClsPairs = kMaxHidden / 64;  // pairs per lane of the CLS row

// One warp per row slot. The row's logits are loaded 32 at a time, one per lane, and every
// per-marker value (exp, probability, log) is computed by its lane; the order-dependent sums and the
// top-2 scan run on lane 0 over those values in marker order, as a serial loop over the logits would
// — without a memory round trip per marker (lane 0 walking global memory alone was ≈ 16 µs a
// forward, docs/benchmarks/cuda.md item 48).
template <class T>
__global__ void features_kernel(FeaturesParams<T> p) {
  using H = dev::Half16<T>;
  using Pair = typename H::Pair;
  const int s = blockIdx.x;
  const int lane = threadIdx.x;
  // The offsets are in the staging block, written by the forward's first kernel, which has completed
  // by the time this one starts (see pdl_prologue, common.cuh): read before the wait, from L2.
  const int ms = __ldcg(p.marker_offsets + s), me = __ldcg(p.marker_offsets + s + 1);
  const int rs = __ldcg(p.row_offsets + s), re = __ldcg(p.row_offsets + s + 1);
  dev::pdl_prologue();
  const int n = me - ms;
  T* dst = p.act_in + static_cast<int64_t>(s) * (p.d + 4);
  const float* cls = p.h + static_cast<int64_t>(p.cls_at_slot ? s : rs) * p.d;
  // The CLS state in pairs (d is even and at most 64 * kClsPairs: checked at launch), every load
  // issued before the first store.
  float2 v[kClsPairs];
#pragma unroll
  for (int j = 0; j < kClsPairs; ++j) {
    const int e = 2 * lane + 64 * j;
    v[j] = re > rs && e < p.d ? *reinterpret_cast<const float2*>(cls + e) : make_float2(0.f, 0.f);
  }
  for (int k = ms + lane; k < me; k += 32) p.logits_out[k] = H::to_float(p.logits[k]);
  if (s == 0)  // padding markers: finite values, never read by the host
    for (int k = p.marker_offsets[p.row_slots] + lane; k < p.markers_pad; k += 32)
      p.logits_out[k] = H::to_float(p.logits[k]);
#pragma unroll
  for (int j = 0; j < kClsPairs; ++j) {
    const int e = 2 * lane + 64 * j;
    if (e < p.d) *reinterpret_cast<Pair*>(dst + e) = H::from_float2(v[j].x, v[j].y);
  }
  float f[4] = {0.f, 0.f, 0.f, 0.f};
  if (n > 0) {
    float mx = -INFINITY;
    for (int c = 0; c < n; c += 32)
      mx = fmaxf(mx, c + lane < n ? H::to_float(p.logits[ms + c + lane]) : -INFINITY);
    mx = dev::warp_max(mx);
    float sum = 0.f;
    for (int c = 0; c < n; c += 32) {
      const float x = c + lane < n ? expf(H::to_float(p.logits[ms + c + lane]) - mx) : 0.f;
      for (int j = 0; j < 32 && c + j < n; ++j) sum += __shfl_sync(0xffffffffu, x, j);
    }
    float top1 = 0.f, top2 = 0.f, ent = 0.f;
    for (int c = 0; c < n; c += 32) {
      const float pk = c + lane < n ? expf(H::to_float(p.logits[ms + c + lane]) - mx) / sum : 0.f;
      const float lg = logf(fmaxf(pk, 1e-9f));
      for (int j = 0; j < 32 && c + j < n; ++j) {
        const float pj = __shfl_sync(0xffffffffu, pk, j), lj = __shfl_sync(0xffffffffu, lg, j);
        if (pj > top1) {
          top2 = top1;
          top1 = pj;
        } else if (pj > top2) {
          top2 = pj;
        }
        ent += pj * lj;
      }
    }
    const float kf = static_cast<float>(n < 2 ? 2 : n);
    f[0] = top1;
    f[1] = top1 - top2;
    f[2] = -ent / logf(kf);
    f[3] = kf / 255.0f;
  }
  // Every lane holds the same four features (the loops above ran warp-wide): lanes 0..3 store one.
  if (lane < 4) dst[p.d + lane] = H::from_float(lane == 0 ? f[0] : lane == 1 ? f[1] : lane == 2 ? f[2] : f[3]);
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
  const int64_t outputs = static_cast<int64_t>(p.rows) * p.n;
  if (outputs == 0) return;
  constexpr int64_t per_block = kSmallLinearThreads / (32 * kOutWarps);
  launch_kernel(small_linear_kernel<T>, static_cast<unsigned>((outputs + per_block - 1) / per_block),
                kSmallLinearThreads, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_features(const FeaturesParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.logits && p.marker_offsets && p.row_offsets && p.h && p.act_in && p.logits_out && p.row_slots > 0 &&
                   p.d > 0 && p.d % 2 == 0 && p.d <= 64 * kClsPairs,
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
