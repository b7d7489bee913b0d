// laya_bench_wgmma_loop: what one k-tile of the small GEMM's MMA loop costs on this GPU, by shape
// and structure, with the operands already in shared memory (no loads; docs/benchmarks/cuda.md
// item 70). One CTA an SM (132), each running T k-tiles of 64 (4 x wgmma m64nNk16, both operands
// by 128-byte-swizzled descriptors, fp32 accumulators) over a 4-stage ring of A [64 x 64] and
// B [N x 64] boxes, timed by clock64 per warpgroup:
//   N = 32: the small GEMM as it is (A = the 64-row activation box, B = 32 weight rows);
//   N = 16 / 48 / 64: the swapped form (A = 64 weight rows, B = the m tokens), and N = 64 for 64
//   weight rows a CTA; N = 128 / 256 calibrate the tensor cores' peak;
//   wait<1>: the engine's loop (commit a k-tile, wait for the one before); wait-end: every k-tile
//   issued, one wait at the end; 2 WG: two consumer warpgroups, even and odd k-tiles.
// Prints cycles a k-tile and multiply-adds a cycle an SM; asserts nothing.
//
// usage: laya_bench_wgmma_loop [--tiles 64]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cuda/wgmma.cuh"
#include "bench_common.h"

namespace {

using laya::bench::check;
constexpr int kStages = 4;  // the ring the loop cycles over (its contents do not change)

// The engine's wgmma (wgmma.cuh).
template <int N>
__device__ __forceinline__ void mma(float (&d)[N / 2], uint64_t da, uint64_t db) {
  laya::cuda::dev::wgmma_m64nNk16_ss<__nv_bfloat16, N>(d, da, db);
}

__host__ __device__ constexpr int stage_bytes(int n) { return 64 * 128 + n * 128; }
__host__ __device__ constexpr int smem_bytes(int n) { return kStages * stage_bytes(n) + 1024; }

// kWaitEach: the engine's wait<1> after each k-tile (else one wait<0> at the end).
template <int N, int kWarpgroups, bool kWaitEach>
__global__ void __launch_bounds__(128 * kWarpgroups, 1) loop_kernel(int tiles, unsigned long long* cycles, float* sink) {
#ifdef LAYA_HAS_WGMMA
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  for (int i = threadIdx.x; i < kStages * stage_bytes(N) / 4; i += blockDim.x)
    reinterpret_cast<uint32_t*>(smem)[i] = 0x3c003c00u * (i & 1);  // small finite bf16 values and zeros
  laya::cuda::dev::fence_proxy_async_smem();
  __syncthreads();
  const int wg = static_cast<int>(threadIdx.x) / 128;
  float d[N / 2];
#pragma unroll
  for (int j = 0; j < N / 2; ++j) d[j] = 0.f;
  const long long t0 = clock64();
  for (int i = wg; i < tiles; i += kWarpgroups) {
    const unsigned char* a = smem + (i % kStages) * stage_bytes(N);
    laya::cuda::dev::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      mma<N>(d, laya::cuda::dev::sw128_desc(a + kk * 32), laya::cuda::dev::sw128_desc(a + 64 * 128 + kk * 32));
    laya::cuda::dev::wgmma_commit();
    if constexpr (kWaitEach) laya::cuda::dev::wgmma_wait<1>();
  }
  laya::cuda::dev::wgmma_wait<0>();
#pragma unroll
  for (int j = 0; j < N / 2; ++j) laya::cuda::dev::fence_reg(d[j]);
  const long long t1 = clock64();
  if (threadIdx.x % 128 == 0) cycles[blockIdx.x * kWarpgroups + wg] = static_cast<unsigned long long>(t1 - t0);
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < N / 2; ++j) s += d[j];
  if (s == 12345.f) sink[threadIdx.x] = s;  // keeps the MMAs
#endif
}

template <int N, int kWarpgroups, bool kWaitEach>
void run(const char* what, int tiles, int ctas, unsigned long long* cycles, float* sink) {
  auto kernel = loop_kernel<N, kWarpgroups, kWaitEach>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes(N)), "smem");
  std::vector<double> per_tile;
  for (int rep = 0; rep < 3; ++rep) {
    kernel<<<ctas, 128 * kWarpgroups, smem_bytes(N)>>>(tiles, cycles, sink);
    check(cudaGetLastError(), "launch");
    std::vector<unsigned long long> c(static_cast<size_t>(ctas) * kWarpgroups);
    check(cudaMemcpy(c.data(), cycles, c.size() * 8, cudaMemcpyDeviceToHost), "cycles");
    for (const auto v : c) per_tile.push_back(static_cast<double>(v) / tiles * kWarpgroups);
  }
  std::sort(per_tile.begin(), per_tile.end());
  const double med = per_tile[per_tile.size() / 2];
  const double macs = 64.0 * N * 64;  // a k-tile
  std::printf("%-34s %4d CTAs  %8.1f cycles a k-tile (%.3f us at 1.98 GHz), %7.0f MAC/cycle an SM%s\n", what, ctas, med,
              med / 1980.0, macs / med, kWarpgroups > 1 ? " (2 WGs together)" : "");
}

}  // namespace

int main(int argc, char** argv) {
  int tiles = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--tiles") tiles = std::max(2, std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: %s [--tiles 64]\n", argv[0]);
      return 2;
    }
  }
  unsigned long long* cycles = nullptr;
  float* sink = nullptr;
  check(cudaMalloc(&cycles, 2 * 132 * 8), "alloc");
  check(cudaMalloc(&sink, 256 * 4), "alloc");
  std::printf("%d k-tiles of 64 a warpgroup (2 WG: split between them); operands in shared memory\n", tiles);
  for (const int ctas : {1, 132}) {
    run<32, 1, true>("N=32 wait<1> (engine now)", tiles, ctas, cycles, sink);
    run<32, 1, false>("N=32 wait-end", tiles, ctas, cycles, sink);
    run<32, 2, true>("N=32 wait<1>, 2 WG", tiles, ctas, cycles, sink);
    run<16, 1, true>("N=16 wait<1> (swapped, m=16)", tiles, ctas, cycles, sink);
    run<48, 1, true>("N=48 wait<1> (swapped, m=48)", tiles, ctas, cycles, sink);
    run<48, 2, true>("N=48 wait<1>, 2 WG", tiles, ctas, cycles, sink);
    run<64, 1, true>("N=64 wait<1> (swapped m=64 / 64 rows)", tiles, ctas, cycles, sink);
    run<64, 1, false>("N=64 wait-end", tiles, ctas, cycles, sink);
    run<64, 2, true>("N=64 wait<1>, 2 WG", tiles, ctas, cycles, sink);
    run<128, 1, true>("N=128 wait<1>", tiles, ctas, cycles, sink);
    run<256, 1, true>("N=256 wait<1>", tiles, ctas, cycles, sink);
  }
  check(cudaDeviceSynchronize(), "sync");
  return 0;
}
