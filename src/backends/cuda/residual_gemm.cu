#include "backends/cuda/residual_gemm.cuh"

#include <cuda.h>

#include <algorithm>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/tma.cuh"
#include "backends/cuda/wgmma.cuh"

namespace laya::cuda {

namespace {

constexpr int kConsumers = 2;          // consumer warpgroups, 64 rows each
constexpr int kBM = 64 * kConsumers;  // rows per tile
constexpr int kBN = 128;              // output columns per tile (one m64n128 accumulator a warpgroup)
constexpr int kBK = 64;               // K per stage: one 128-byte swizzle row
constexpr int kStages = 6;            // TMA pipeline depth
constexpr int kATile = kBM * kBK * 2;  // 16 KB
constexpr int kBTile = kBN * kBK * 2;  // 16 KB
constexpr int kStageBytes = kATile + kBTile;
constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;  // + barriers, alignment slack
// Warpgroups 0..kConsumers-1: consumers; warpgroup kConsumers: the producer. 384 threads leave each
// 168 registers: the 64 accumulators and the epilogue's 64 loaded values fit without setmaxnreg.
constexpr int kThreads = 128 * (kConsumers + 1);

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LAYA_RESIDUAL_GEMM_BODY 1
#endif

template <class T>
__global__ void __launch_bounds__(kThreads, 1)
    residual_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map, float* x,
                         int m, int n, int k) {
#ifdef LAYA_RESIDUAL_GEMM_BODY
  using namespace dev;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  const int k_tiles = k / kBK, n_tiles = n / kBN, tiles = n_tiles * ((m + kBM - 1) / kBM);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);                // the producer's expect_tx arrival; the bytes complete it
      mbar_init(&empty[s], 4 * kConsumers);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  // Before the programmatic wait: the W boxes of the CTA's first stages (weights do not come from
  // the previous kernel; from DRAM they are the longest trip of the kernel's start — the fused GeGLU
  // GEMM's measure, docs/benchmarks/cuda.md item 176). The grid holds at most `tiles` CTAs.
  const int wg = static_cast<int>(threadIdx.x) / 128, tid = static_cast<int>(threadIdx.x) % 128;
  const int early = k_tiles < kStages ? k_tiles : kStages;
  if (wg == kConsumers && tid == 0) {
    const int n0 = (static_cast<int>(blockIdx.x) % n_tiles) * kBN;
    for (int i = 0; i < early; ++i) {
      mbar_expect_tx(&full[i], kStageBytes);
      tma_load(smem + i * kStageBytes + kATile, &w_map, &full[i], i * kBK, n0);
    }
  }
  pdl_prologue();  // the activations and x come from the kernels before
  if (wg == kConsumers) {  // the producer warpgroup; one thread issues the loads
    if (tid == 0) {
      int it = 0;
      for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x)) {
        const int n0 = (t % n_tiles) * kBN, m0 = (t / n_tiles) * kBM;
        for (int i = 0; i < k_tiles; ++i, ++it) {
          const int s = it % kStages;
          unsigned char* st = smem + s * kStageBytes;
          if (it < early) {  // its W box is on its way
            tma_load(st, &a_map, &full[s], i * kBK, m0);
            continue;
          }
          if (it >= kStages) mbar_wait(&empty[s], ((it / kStages) - 1) & 1);
          mbar_expect_tx(&full[s], kStageBytes);
          tma_load(st, &a_map, &full[s], i * kBK, m0);
          tma_load(st + kATile, &w_map, &full[s], i * kBK, n0);
        }
      }
    }
    return;
  }
  const int c = wg;  // this consumer's 64 rows of each tile
  const int warp = tid >> 5, lane = tid & 31;
  int it = 0;
  for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x)) {
    const int n0 = (t % n_tiles) * kBN, m0 = (t / n_tiles) * kBM;
    float acc[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = 0.f;
    // k-tile i: wait for its stage and issue its MMAs; keep them in flight and release the previous
    // k-tile's stage once its MMAs are done.
    for (int i = 0; i < k_tiles; ++i, ++it) {
      const int s = it % kStages;
      mbar_wait(&full[s], (it / kStages) & 1);
      const unsigned char* a_tile = smem + s * kStageBytes + c * (kATile / kConsumers);
      const unsigned char* b_tile = smem + s * kStageBytes + kATile;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBK / 16; ++kk)
        wgmma_m64nNk16_ss<T, kBN>(acc, sw128_desc(a_tile + kk * 32), sw128_desc(b_tile + kk * 32));
      wgmma_commit();
      wgmma_wait<1>();
      if (i > 0 && lane == 0) mbar_arrive(&empty[(it - 1) % kStages]);
    }
    wgmma_wait<0>();
    if (lane == 0) mbar_arrive(&empty[(it - 1) % kStages]);
#pragma unroll
    for (int j = 0; j < 64; ++j) fence_reg(acc[j]);  // read only after the wait
    // acc[4i + 2h + e]: row 16 warp + lane / 4 + 8 h, column 8i + 2 (lane % 4) + e of the warpgroup's
    // 64 x 128 block. Each row's 16 pairs are loaded together, then added and stored.
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + c * 64 + warp * 16 + (lane >> 2) + 8 * h;
      if (row >= m) continue;
      float2* xr = reinterpret_cast<float2*>(x + static_cast<size_t>(row) * n + n0 + 2 * (lane & 3));
      float2 v[16];
#pragma unroll
      for (int i = 0; i < 16; ++i) v[i] = xr[4 * i];
#pragma unroll
      for (int i = 0; i < 16; ++i) {
        v[i].x = __fadd_rn(v[i].x, acc[4 * i + 2 * h]);
        v[i].y = __fadd_rn(v[i].y, acc[4 * i + 2 * h + 1]);
        xr[4 * i] = v[i];
      }
    }
  }
#endif
}

}  // namespace

bool residual_gemm_supported(int32_t n, int32_t k) {
  static const bool device_ok = sm90a_kernel_runs(residual_gemm_kernel<__nv_bfloat16>) && tma_encode_available();
  return device_ok && k > 0 && k % kBK == 0 && n > 0 && n % kBN == 0;
}

template <class T>
void launch_residual_gemm(const ResidualGemmArgs<T>& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.in && a.w && a.x && a.m >= 0 && residual_gemm_supported(a.n, a.k), ErrorKind::internal,
               "residual_gemm: unsupported call (m {}, n {}, k {})", a.m, a.n, a.k);
  LAYA_REQUIRE((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.w) | reinterpret_cast<uintptr_t>(a.x)) %
                       16 ==
                   0,
               ErrorKind::internal, "residual_gemm: operands must be 16-byte aligned");
  if (a.m == 0) return;
  static const bool configured = [] {
    LAYA_CUDA_CHECK(cudaFuncSetAttribute(residual_gemm_kernel<__nv_bfloat16>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         kSmemBytes));
    LAYA_CUDA_CHECK(cudaFuncSetAttribute(residual_gemm_kernel<__half>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return true;
  }();
  (void)configured;
  const CUtensorMap a_map = tma_tensor_map(a.in, a.m, a.k, kBM);
  const CUtensorMap w_map = tma_tensor_map(a.w, a.n, a.k, kBN);
  static const int sms = [] {
    int dev = 0, count = 0;
    LAYA_CUDA_CHECK(cudaGetDevice(&dev));
    LAYA_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, dev));
    return count;
  }();
  const int tiles = (a.n / kBN) * ((a.m + kBM - 1) / kBM);
  const dim3 grid(static_cast<unsigned>(std::min(tiles, a.max_ctas > 0 ? std::min(a.max_ctas, sms) : sms)));
  launch_kernel_smem(residual_gemm_kernel<T>, grid, dim3(kThreads), kSmemBytes, stream, true, a_map, w_map, a.x, a.m,
                     a.n, a.k);
  LAYA_CUDA_CHECK_LAUNCH();
}

template void launch_residual_gemm<__nv_bfloat16>(const ResidualGemmArgs<__nv_bfloat16>&, cudaStream_t);
template void launch_residual_gemm<__half>(const ResidualGemmArgs<__half>&, cudaStream_t);

}  // namespace laya::cuda
