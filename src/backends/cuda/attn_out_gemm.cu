#include "backends/cuda/attn_out_gemm.cuh"

#include <cmath>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/tma.cuh"
#include "backends/cuda/wgmma.cuh"

namespace laya::cuda {

namespace {

constexpr int kHeads = kAttnOutHeadsPerCta;
constexpr int kThreads = 128 * kHeads;  // warpgroup j: head j of the CTA's split; warpgroup 0 also runs the GEMM
constexpr int kTileBytes = 64 * 64 * 2;  // one 64 x 64 16-bit tile, 128-byte swizzled (TMA's layout)
// Shared memory (after 1024-byte alignment): the CTA's W boxes (one a head: its 64 output rows x the
// head's 64 columns), each head's q, K, V, each head's attention output (the GEMM's B operand), the
// barriers.
constexpr int kWOffset = 0;
constexpr int kQkvOffset = kWOffset + kHeads * kTileBytes;
constexpr int kOOffset = kQkvOffset + 3 * kHeads * kTileBytes;
constexpr int kBarOffset = kOOffset + kHeads * kTileBytes;
constexpr int kSmemBytes = kBarOffset + (1 + kHeads) * 8 + 1024;

#ifdef LAYA_HAS_WGMMA
constexpr float kLog2e = 1.4426950408889634f;

// Element offset of 16-byte chunk c of row j in a 128-byte-swizzled tile (attention.cu's tile_at).
__device__ __forceinline__ int swizzled(int j, int c) { return j * 64 + ((c ^ (j & 7)) << 3); }

// The keys token t attends to, [lo, hi] (empty: hi < lo): its row's, none for a token past m or of
// the zero row. Staging values, read before the PDL wait.
__device__ __forceinline__ int2 key_range(const int32_t* tok_row, const int32_t* row_off, int t, int m, int zero_row) {
  if (t >= m) return make_int2(0, -1);
  const int s = __ldcg(tok_row + t);
  if (s == zero_row) return make_int2(0, -1);
  return make_int2(__ldcg(row_off + s), __ldcg(row_off + s + 1) - 1);
}

// One head's attention for the 64 tokens of the tile, as attention_mma_kernel's wgmma form computes
// one key tile (exp2 softmax, P rounded to T, O / l rounded to T), written into `o_tile` in the
// GEMM's B layout (token rows, 128-byte swizzle). q, k, v: the head's TMA boxes.
template <class T>
__device__ __forceinline__ void head_attention(const T* q, const T* k, const T* v, T* o_tile, int2 ra, int2 rb,
                                               float scale) {
  const int tid = static_cast<int>(threadIdx.x) & 127;
  const int warp = tid >> 5, lane = tid & 31, g = lane >> 2, tig = lane & 3;
  float s[8][4];
  dev::wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < 4; ++kk)
    dev::wgmma_m64n64k16_ss<T>(s, dev::sw128_desc(q) + 2 * kk, dev::sw128_desc(k) + 2 * kk, kk);
  dev::wgmma_commit();
  dev::wgmma_wait<0>();
  dev::fence_regs(s);
  // Keys first + off, off = 8n + c, against this thread's two query rows' ranges.
  const int first = tig * 2;
  const int alo = ra.x - first, ahi = ra.y - first, blo = rb.x - first, bhi = rb.y - first;
#pragma unroll
  for (int n = 0; n < 8; ++n)
#pragma unroll
    for (int c = 0; c < 2; ++c) {
      const int off = n * 8 + c;
      s[n][c] = off >= alo && off <= ahi ? s[n][c] : -INFINITY;
      s[n][2 + c] = off >= blo && off <= bhi ? s[n][2 + c] : -INFINITY;
    }
  float ta[8], tb[8];
#pragma unroll
  for (int n = 0; n < 8; ++n) {
    ta[n] = fmaxf(s[n][0], s[n][1]);
    tb[n] = fmaxf(s[n][2], s[n][3]);
  }
#pragma unroll
  for (int w = 4; w > 0; w >>= 1)
#pragma unroll
    for (int i = 0; i < w; ++i) {
      ta[i] = fmaxf(ta[i], ta[i + w]);
      tb[i] = fmaxf(tb[i], tb[i + w]);
    }
  float mx_a = ta[0], mx_b = tb[0];
  mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 1));
  mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, 2));
  mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 1));
  mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, 2));
  const float sl = scale * kLog2e;
  // No valid key (max -inf): subtract 0, so exp2(-inf) = 0 and the output is 0, never NaN.
  const float base_a = mx_a == -INFINITY ? 0.f : mx_a * sl, base_b = mx_b == -INFINITY ? 0.f : mx_b * sl;
  uint32_t pf[4][4];
  float sa[8], sb[8];
#pragma unroll
  for (int n = 0; n < 8; ++n) {
    const float p0 = dev::ex2_approx_ftz(fmaf(s[n][0], sl, -base_a)), p1 = dev::ex2_approx_ftz(fmaf(s[n][1], sl, -base_a));
    const float p2 = dev::ex2_approx_ftz(fmaf(s[n][2], sl, -base_b)), p3 = dev::ex2_approx_ftz(fmaf(s[n][3], sl, -base_b));
    sa[n] = p0 + p1;
    sb[n] = p2 + p3;
    pf[n >> 1][(n & 1) * 2 + 0] = dev::pack16<T>(p0, p1);
    pf[n >> 1][(n & 1) * 2 + 1] = dev::pack16<T>(p2, p3);
  }
#pragma unroll
  for (int w = 4; w > 0; w >>= 1)
#pragma unroll
    for (int i = 0; i < w; ++i) {
      sa[i] += sa[i + w];
      sb[i] += sb[i + w];
    }
  float l_a = sa[0], l_b = sb[0];
  float o[8][4];
#pragma unroll
  for (int n = 0; n < 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
  // O = P . V, V the MN-major operand (its rows are keys); 16 keys (2048 bytes) a step.
  dev::fence_regs(o);
  dev::wgmma_fence();
#pragma unroll
  for (int t = 0; t < 4; ++t) dev::wgmma_m64n64k16_rs<T, true>(o, pf[t], dev::sw128_desc_mn(v) + 128 * t, 1);
  dev::wgmma_commit();
  dev::wgmma_wait<0>();
  dev::fence_regs(o);
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 1);
  l_a += __shfl_xor_sync(0xffffffffu, l_a, 2);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 1);
  l_b += __shfl_xor_sync(0xffffffffu, l_b, 2);
  const float ia = l_a > 0.f ? 1.f / l_a : 0.f, ib = l_b > 0.f ? 1.f / l_b : 0.f;
  const int qa = warp * 16 + g, qb = qa + 8;
#pragma unroll
  for (int n = 0; n < 8; ++n) {
    *reinterpret_cast<uint32_t*>(o_tile + swizzled(qa, n) + tig * 2) = dev::pack16<T>(o[n][0] * ia, o[n][1] * ia);
    *reinterpret_cast<uint32_t*>(o_tile + swizzled(qb, n) + tig * 2) = dev::pack16<T>(o[n][2] * ib, o[n][3] * ib);
  }
}
#endif

// blockIdx.x: the CTA's 64 output columns; blockIdx.y: its split (heads kHeads y .. kHeads y + 3).
// kN: the tokens padded to the MMA's N (16, 32, 48 or 64).
template <class T, int kN>
__global__ void __launch_bounds__(kThreads, 1)
    attn_out_gemm_kernel(const __grid_constant__ CUtensorMap qkv_map, const __grid_constant__ CUtensorMap w_map,
                         float* out, const int32_t* tok_row, const int32_t* row_off, int m, int n, int zero_row,
                         float scale) {
#ifdef LAYA_HAS_WGMMA
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* w_full = reinterpret_cast<uint64_t*>(smem + kBarOffset);
  uint64_t* qkv_full = w_full + 1;  // one a head
  const int split = static_cast<int>(blockIdx.y), col0 = static_cast<int>(blockIdx.x) * 64;
  const int wg = static_cast<int>(threadIdx.x) >> 7;
  if (threadIdx.x == 0) {
    dev::mbar_init(w_full, 1);
    for (int j = 0; j < kHeads; ++j) dev::mbar_init(&qkv_full[j], 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // The weights do not depend on the previous kernel: requested before the wait.
    dev::mbar_expect_tx(w_full, kHeads * kTileBytes);
    for (int j = 0; j < kHeads; ++j)
      dev::tma_load(smem + kWOffset + j * kTileBytes, &w_map, w_full, (split * kHeads + j) * 64, col0);
  }
  // This thread's two query rows' keys (staging values: before the wait).
  const int tid = static_cast<int>(threadIdx.x) & 127, lane = tid & 31;
  const int qa = (tid >> 5) * 16 + (lane >> 2);
  const int2 ra = key_range(tok_row, row_off, qa, m, zero_row), rb = key_range(tok_row, row_off, qa + 8, m, zero_row);
  if (threadIdx.x == 0) {
    dev::pdl_prologue();  // q, K, V are the previous kernel's output
    const int d = n;
    for (int j = 0; j < kHeads; ++j) {
      const int h = split * kHeads + j;
      unsigned char* dst = smem + kQkvOffset + 3 * j * kTileBytes;
      dev::mbar_expect_tx(&qkv_full[j], 3 * kTileBytes);
      dev::tma_load(dst, &qkv_map, &qkv_full[j], h * 64, 0);
      dev::tma_load(dst + kTileBytes, &qkv_map, &qkv_full[j], d + h * 64, 0);
      dev::tma_load(dst + 2 * kTileBytes, &qkv_map, &qkv_full[j], 2 * d + h * 64, 0);
    }
  } else {
    asm volatile("griddepcontrol.wait;\n" ::: "memory");  // `out` may still be read before it
  }
  __syncwarp();  // warp 0 again converged for the warpgroup's wgmma
  {
    const unsigned char* qkv = smem + kQkvOffset + 3 * wg * kTileBytes;
    dev::mbar_wait(&qkv_full[wg], 0);
    head_attention<T>(reinterpret_cast<const T*>(qkv), reinterpret_cast<const T*>(qkv + kTileBytes),
                      reinterpret_cast<const T*>(qkv + 2 * kTileBytes),
                      reinterpret_cast<T*>(smem + kOOffset + wg * kTileBytes), ra, rb, scale);
    dev::fence_proxy_async_smem();  // the attention outputs' plain stores, for the GEMM's wgmma
  }
  __syncthreads();
  if (wg != 0) return;
  // The GEMM over the split's heads in order, 16 columns of K at a time: the small GEMM's K order.
  dev::mbar_wait(w_full, 0);
  float acc[kN / 2];
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) acc[i] = 0.f;
  dev::wgmma_fence();
#pragma unroll
  for (int j = 0; j < kHeads; ++j)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      dev::wgmma_m64nNk16_ss<T, kN>(acc, dev::sw128_desc(smem + kWOffset + j * kTileBytes + kk * 32),
                                    dev::sw128_desc(smem + kOOffset + j * kTileBytes + kk * 32));
  dev::wgmma_commit();
  dev::wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) dev::fence_reg(acc[i]);
  // Register 4c + 2h + e: output column col0 + 16 warp + lane / 4 + 8h, token 8c + 2 (lane % 4) + e.
  const int warp = tid >> 5, t0 = 2 * (lane & 3);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int f = col0 + warp * 16 + (lane >> 2) + 8 * h;
#pragma unroll
    for (int c = 0; c < kN / 8; ++c)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int t = 8 * c + t0 + e;
        if (t < m) out[(static_cast<size_t>(split) * m + t) * n + f] = acc[4 * c + 2 * h + e];
      }
  }
#endif
}

template <class T, int kN>
void launch_instance(const AttnOutGemmArgs<T>& a, cudaStream_t stream) {
  constexpr auto kernel = attn_out_gemm_kernel<T, kN>;
  static const bool configured = [&] {
    LAYA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return true;
  }();
  (void)configured;
  const int32_t d = a.heads * 64;
  const CUtensorMap qkv_map = tma_tensor_map(a.qkv, a.m, 3 * d, 64);
  const CUtensorMap w_map = tma_tensor_map(a.wo, d, d, 64);
  const dim3 grid(static_cast<unsigned>(d / 64), static_cast<unsigned>(attn_out_gemm_parts(a.heads)));
  launch_kernel_smem(kernel, grid, dim3(kThreads), kSmemBytes, stream, true, qkv_map, w_map, a.out, a.tok_row,
                     a.row_offsets, a.m, d, a.zero_row, a.scale);
}

}  // namespace

bool attn_out_gemm_supported(int32_t m, int32_t heads, int32_t window) {
  static const bool device_ok =
      sm90a_kernel_runs(attn_out_gemm_kernel<__nv_bfloat16, 16>) && tma_encode_available();
  return device_ok && m >= 1 && m <= kAttnOutMaxTokens && heads >= kHeads && heads % kHeads == 0 &&
         (window < 0 || window >= m - 1);
}

template <class T>
void launch_attn_out_gemm(const AttnOutGemmArgs<T>& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.qkv && a.wo && a.out && a.tok_row && a.row_offsets && attn_out_gemm_supported(a.m, a.heads, -1),
               ErrorKind::internal, "attn_out_gemm: unsupported call (m {}, heads {})", a.m, a.heads);
  LAYA_REQUIRE((reinterpret_cast<uintptr_t>(a.qkv) | reinterpret_cast<uintptr_t>(a.wo)) % 16 == 0, ErrorKind::internal,
               "attn_out_gemm: operands must be 16-byte aligned");
  if (a.m <= 16)
    launch_instance<T, 16>(a, stream);
  else if (a.m <= 32)
    launch_instance<T, 32>(a, stream);
  else if (a.m <= 48)
    launch_instance<T, 48>(a, stream);
  else
    launch_instance<T, 64>(a, stream);
  LAYA_CUDA_CHECK_LAUNCH();
}

template void launch_attn_out_gemm<__nv_bfloat16>(const AttnOutGemmArgs<__nv_bfloat16>&, cudaStream_t);
template void launch_attn_out_gemm<__half>(const AttnOutGemmArgs<__half>&, cudaStream_t);

}  // namespace laya::cuda
