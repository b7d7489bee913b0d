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
// The fused GeGLU GEMM's consumer loop without loads (fused_loop_kernel, session 36): its MMAs and
// stage ring alone, with and without the barriers, one and two wgmma groups in flight.
// And the register-A form (session 19's lead, docs/benchmarks/cuda.md item 112): N = 64, the 64
// weight rows as wgmma's A operand from registers, loaded by 16-byte global loads from a buffer far
// larger than L2 (fresh memory each run: they stream from DRAM as the weights do), kAhead k-tiles
// in flight (and optionally the k-tiles past them sent to L2 first); only the tokens' B box comes from
// the shared-memory ring. At 32, 48, 82 and 132 CTAs (the engine's output GEMMs, QKV and MLP input
// GEMMs at 48 tokens, and every SM). The loads' k order is whatever makes
// each thread's fragment one contiguous load (a permutation of K, applied to B too in a real GEMM).
// Then the same form with A already in L2 (item 113: weights prefetched to L2 while the kernel before
// runs), both in that fragment order and from a plain row-major block with 4-byte loads.
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

#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/tma.cuh"
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

// Keeps a register-A fragment allocated until here: ptxas treats a register-A operand's registers as
// free once the wgmma is issued (wgmma.cuh), so without a later use it may hand them to other values
// while the wgmma still reads them.
__device__ __forceinline__ void keep(const uint4& v) { asm volatile("" ::"r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)); }

constexpr int kRsStageBytes = 64 * 128;  // the B box: 64 tokens x 64 k
constexpr int kRsSmem = kStages * kRsStageBytes + 1024;

// A k-tile of A is 64 rows x 64 k = 8 KB: 4 x 16 bytes a thread (one per k16 step), the warpgroup's
// 128 threads reading 2 KB contiguous per step.
// kL2Ahead > 0: each k-tile also sends the k-tile kL2Ahead past the loads' reach to L2 (one 128-byte
// line a thread for the first 64 threads), so the loads find it there.
// kNatural: A is a plain row-major [64 rows x K] block, as the engine's weights are stored; each
// thread loads its fragment as 4-byte words (rows g and g + 8, k pairs 2t and 8 + 2t of each k16
// step: 16 loads a k-tile) instead of one 16-byte load a step from a fragment-ordered copy.
template <int kAhead, int kL2Ahead, bool kNatural = false>
__global__ void __launch_bounds__(128, 1) rs_loop_kernel(int tiles, const uint4* w, unsigned long long* cycles,
                                                          float* sink) {
#ifdef LAYA_HAS_WGMMA
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  for (int i = threadIdx.x; i < kStages * kRsStageBytes / 4; i += blockDim.x)
    reinterpret_cast<uint32_t*>(smem)[i] = 0x3c003c00u * (i & 1);
  laya::cuda::dev::fence_proxy_async_smem();
  __syncthreads();
  const uint4* mine = w + static_cast<size_t>(blockIdx.x) * tiles * 512 + threadIdx.x;  // 512 uint4 a k-tile
  const unsigned char* lines = reinterpret_cast<const unsigned char*>(w + static_cast<size_t>(blockIdx.x) * tiles * 512);
  if constexpr (kL2Ahead > 0)
    for (int t = kAhead; t < kAhead + kL2Ahead && t < tiles; ++t)
      if (threadIdx.x < 64) laya::cuda::dev::prefetch_l2(lines + t * 8192 + threadIdx.x * 128);
  // kNatural: this thread's row g of the CTA's 64-row block; a row is `tiles` k-tiles of 32 words.
  const int lane = static_cast<int>(threadIdx.x) % 32, g = lane / 4, t4 = lane % 4;
  const uint32_t* rows = reinterpret_cast<const uint32_t*>(w + static_cast<size_t>(blockIdx.x) * tiles * 512) +
                         static_cast<size_t>(threadIdx.x / 32 * 16 + g) * tiles * 32 + t4;
  const size_t row8 = static_cast<size_t>(8) * tiles * 32;  // 8 rows further
  auto load = [&](uint4& v, int tile, int kk) {
    if constexpr (kNatural) {
      const uint32_t* at = rows + tile * 32 + kk * 8;
      v = make_uint4(at[0], at[row8], at[4], at[row8 + 4]);
    } else {
      v = mine[tile * 512 + kk * 128];
    }
  };
  uint4 a[kAhead][4];
#pragma unroll
  for (int j = 0; j < kAhead; ++j)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) load(a[j][kk], j, kk);
  float d[8][4];
#pragma unroll
  for (int n = 0; n < 8; ++n)
#pragma unroll
    for (int c = 0; c < 4; ++c) d[n][c] = 0.f;
  const long long t0 = clock64();
  for (int i0 = 0; i0 < tiles; i0 += kAhead) {
#pragma unroll
    for (int j = 0; j < kAhead; ++j) {
      const int i = i0 + j;
      const unsigned char* b = smem + (i % kStages) * kRsStageBytes;
      laya::cuda::dev::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
        laya::cuda::dev::wgmma_m64n64k16_rs<__nv_bfloat16, false>(
            d, reinterpret_cast<const uint32_t(&)[4]>(a[j][kk]), laya::cuda::dev::sw128_desc(b + kk * 32), 1);
      laya::cuda::dev::wgmma_commit();
      laya::cuda::dev::wgmma_wait<1>();  // the k-tile before this one is done: its registers are free
      const int prev = (j + kAhead - 1) % kAhead;
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) keep(a[prev][kk]);
      const int next = i - 1 + kAhead;  // the k-tile that reuses them
      if constexpr (kL2Ahead > 0)
        if (next + kL2Ahead < tiles && threadIdx.x < 64)
          laya::cuda::dev::prefetch_l2(lines + (next + kL2Ahead) * 8192 + threadIdx.x * 128);
      if (i >= 1 && next < tiles)
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) load(a[prev][kk], next, kk);
    }
  }
  laya::cuda::dev::wgmma_wait<0>();
#pragma unroll
  for (int j = 0; j < kAhead; ++j)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) keep(a[j][kk]);
  laya::cuda::dev::fence_regs(d);
  const long long t1 = clock64();
  if (threadIdx.x == 0) cycles[blockIdx.x] = static_cast<unsigned long long>(t1 - t0);
  float s = 0.f;
#pragma unroll
  for (int n = 0; n < 8; ++n)
#pragma unroll
    for (int c = 0; c < 4; ++c) s += d[n][c];
  if (s == 12345.f) sink[threadIdx.x] = s;
#endif
}

// The register-A form at `ctas` CTAs, three runs, each on memory the run before did not touch.
// kWarm: every run on the same memory, after one run that brought it into L2 (A read from L2, as
// weights prefetched there while the kernel before runs would be).
template <int kAhead, int kL2Ahead = 0, bool kNatural = false, bool kWarm = false>
void run_rs(int tiles, int ctas, const uint4* w, size_t w_vec4, unsigned long long* cycles, float* sink) {
  auto kernel = rs_loop_kernel<kAhead, kL2Ahead, kNatural>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kRsSmem), "smem");
  const size_t per_run = static_cast<size_t>(ctas) * tiles * 512;
  std::vector<double> per_tile;
  if (kWarm) kernel<<<ctas, 128, kRsSmem>>>(tiles, w, cycles, sink);
  for (int rep = 0; rep < 3; ++rep) {
    const size_t off = kWarm ? 0 : (static_cast<size_t>(rep + 1) * per_run) % (w_vec4 - per_run);
    kernel<<<ctas, 128, kRsSmem>>>(tiles, w + off, cycles, sink);
    check(cudaGetLastError(), "launch");
    std::vector<unsigned long long> c(static_cast<size_t>(ctas));
    check(cudaMemcpy(c.data(), cycles, c.size() * 8, cudaMemcpyDeviceToHost), "cycles");
    for (const auto v : c) per_tile.push_back(static_cast<double>(v) / tiles);
  }
  std::sort(per_tile.begin(), per_tile.end());
  const double med = per_tile[per_tile.size() / 2], worst = per_tile.back();
  const double bytes_per_cycle = 8192.0 * ctas / med;  // A's bytes a cycle, all CTAs
  std::printf("N=64 A from registers%s, %d k-tiles ahead, %2d more to L2, %s  %4d CTAs  %8.1f cycles a k-tile (slowest "
              "CTA %.1f; %.3f us), A at %.0f GB/s in all\n",
              kNatural ? " (row-major, 4-byte loads)" : "", kAhead, kL2Ahead, kWarm ? "in L2  " : "from DRAM", ctas, med,
              worst, med / 1980.0, bytes_per_cycle * 1.98);
}

// The fused GeGLU GEMM's consumer side (geglu_gemm.cu) without loads or epilogue: item 168's
// "MMAs and the ring only" variant, isolated. Four consumer warpgroups, each m64n128k16 on its 64-row
// slice of a 256-row A box against the 128 W rows of the stage, over a 4-stage ring of 48 KB stages
// that a producer thread runs with mbarriers (no bytes: its arrival on "full" completes the phase),
// tiles of 16 k-tiles (K = 1,024), the accumulators packed to 16 bits and zeroed between tiles as the
// kernel does before its deferred epilogue. kRing false: the same loop without the barriers (the
// stages are cycled, their contents never change). kDepth: wgmma groups a warpgroup keeps in flight
// (the kernel: 1 — wait<1>, then the stage of the k-tile before goes back). Cycles a tile a CTA.
constexpr int kFusedConsumers = 4, kFusedK = 16;
constexpr int kFusedABytes = 64 * kFusedConsumers * 128, kFusedStage = kFusedABytes + 128 * 128;
constexpr int kFusedSmem = kStages * kFusedStage + 1024 + 2 * kStages * 8;

template <bool kRing, int kDepth>
__global__ void __launch_bounds__(128 * (kFusedConsumers + 1), 1)
    fused_loop_kernel(int tiles, unsigned long long* cycles, float* sink) {
#ifdef LAYA_HAS_WGMMA
  namespace dev = laya::cuda::dev;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kFusedStage);
  uint64_t* empty = full + kStages;
  for (int i = threadIdx.x; i < kStages * kFusedStage / 4; i += blockDim.x)
    reinterpret_cast<uint32_t*>(smem)[i] = 0x3c003c00u * (i & 1);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      dev::mbar_init(&full[s], 1);
      dev::mbar_init(&empty[s], 4 * kFusedConsumers);  // one arrival per consumer warp, as the kernel
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  dev::fence_proxy_async_smem();
  __syncthreads();
  const int wg = static_cast<int>(threadIdx.x) / 128, lane = static_cast<int>(threadIdx.x) % 32;
  const long long t0 = clock64();
  if (wg == kFusedConsumers) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
    if (kRing && threadIdx.x % 128 == 0)
      for (int it = 0; it < tiles * kFusedK; ++it) {
        const int s = it % kStages;
        if (it >= kStages) dev::mbar_wait(&empty[s], ((it / kStages) - 1) & 1);
        dev::mbar_arrive(&full[s]);
      }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 112;\n");
  uint32_t pk[32];
#pragma unroll
  for (int j = 0; j < 32; ++j) pk[j] = 0;
  int it = 0;
  for (int t = 0; t < tiles; ++t) {
    float acc[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = 0.f;
    for (int i = 0; i < kFusedK; ++i, ++it) {
      const int s = it % kStages;
      if constexpr (kRing) dev::mbar_wait(&full[s], (it / kStages) & 1);
      const unsigned char* a = smem + s * kFusedStage + wg * (kFusedABytes / kFusedConsumers);
      const unsigned char* b = smem + s * kFusedStage + kFusedABytes;
      dev::wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) mma<128>(acc, dev::sw128_desc(a + kk * 32), dev::sw128_desc(b + kk * 32));
      dev::wgmma_commit();
      dev::wgmma_wait<kDepth>();
      if (kRing && i >= kDepth && lane == 0) dev::mbar_arrive(&empty[(it - kDepth) % kStages]);
    }
    dev::wgmma_wait<0>();
    if (kRing && lane == 0)
      for (int j = kDepth; j >= 1; --j) dev::mbar_arrive(&empty[(it - j) % kStages]);
#pragma unroll
    for (int j = 0; j < 64; ++j) dev::fence_reg(acc[j]);
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) pk[4 * i + j] ^= dev::pack16<__nv_bfloat16>(acc[4 * i + j], acc[4 * (i + 8) + j]);
  }
  const long long t1 = clock64();
  if (threadIdx.x % 128 == 0) cycles[blockIdx.x * kFusedConsumers + wg] = static_cast<unsigned long long>(t1 - t0);
  uint32_t x = 0;
#pragma unroll
  for (int j = 0; j < 32; ++j) x ^= pk[j];
  if (x == 12345u) sink[threadIdx.x] = 1.f;  // keeps the MMAs
#endif
}

template <bool kRing, int kDepth>
void run_fused(const char* what, int tiles, unsigned long long* cycles, float* sink) {
  auto kernel = fused_loop_kernel<kRing, kDepth>;
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kFusedSmem), "smem");
  constexpr int ctas = 132;
  std::vector<double> per_tile;
  for (int rep = 0; rep < 3; ++rep) {
    kernel<<<ctas, 128 * (kFusedConsumers + 1), kFusedSmem>>>(tiles, cycles, sink);
    check(cudaGetLastError(), "launch");
    std::vector<unsigned long long> c(static_cast<size_t>(ctas) * kFusedConsumers);
    check(cudaMemcpy(c.data(), cycles, c.size() * 8, cudaMemcpyDeviceToHost), "cycles");
    for (const auto v : c) per_tile.push_back(static_cast<double>(v) / tiles);
  }
  std::sort(per_tile.begin(), per_tile.end());
  const double med = per_tile[per_tile.size() / 2];
  const double macs = 256.0 * 128 * 64 * kFusedK;  // a tile
  std::printf("%-40s %2d tiles a CTA  %8.0f cycles a tile (%.2f us at 1.98 GHz), %5.0f MAC/cycle an SM (%.0f %% of 2,020)\n",
              what, tiles, med, med / 1980.0, macs / med, 100.0 * macs / med / 2020.0);
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
  check(cudaMalloc(&cycles, kFusedConsumers * 132 * 8), "alloc");  // a record per warpgroup and CTA
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
  // The register-A form: A streams from a 1 GiB buffer (far past L2), fresh memory each run.
  const size_t w_vec4 = (size_t{1} << 30) / 16;
  uint4* w = nullptr;
  check(cudaMalloc(&w, w_vec4 * 16), "alloc");
  check(cudaMemset(w, 0, w_vec4 * 16), "clear");
  std::printf("register A (64 weight rows a CTA, from DRAM), B (64 tokens) from shared memory\n");
  for (const int ctas : {32, 48, 82, 132}) {
    run_rs<4>(tiles, ctas, w, w_vec4, cycles, sink);
    run_rs<8>(tiles, ctas, w, w_vec4, cycles, sink);
    run_rs<8, 8>(tiles, ctas, w, w_vec4, cycles, sink);
    run_rs<8, 24>(tiles, ctas, w, w_vec4, cycles, sink);
  }
  // A resident in L2 (item 113): the loop's rate when the weights were prefetched there beforehand,
  // in the fragment order and as the engine stores them. 16 k-tiles (K = 1,024) keep the largest
  // grid's A (132 x 128 KB) well inside L2.
  const int l2_tiles = std::min(tiles, 16);
  std::printf("register A from L2 (the same memory every run, after a warm-up run), %d k-tiles\n", l2_tiles);
  for (const int ctas : {32, 48, 82, 132}) {
    run_rs<8, 0, false, true>(l2_tiles, ctas, w, w_vec4, cycles, sink);
    run_rs<8, 0, true, true>(l2_tiles, ctas, w, w_vec4, cycles, sink);
    run_rs<8, 0, true, false>(l2_tiles, ctas, w, w_vec4, cycles, sink);
  }
  std::printf("the fused GeGLU GEMM's consumers (4 warpgroups of m64n128k16, 16 k-tiles a tile), no loads, 132 CTAs\n");
  for (const int t : {1, 3, 10}) {
    run_fused<false, 1>("no ring, wait<1>", t, cycles, sink);
    run_fused<true, 1>("ring, wait<1> (the kernel)", t, cycles, sink);
    run_fused<true, 2>("ring, wait<2>", t, cycles, sink);
    run_fused<false, 2>("no ring, wait<2>", t, cycles, sink);
  }
  run<64, 1, true>("N=64 wait<1>, both from shared (ref.)", tiles, 82, cycles, sink);
  run<48, 1, true>("N=48 wait<1>, both from shared (ref.)", l2_tiles, 48, cycles, sink);
  check(cudaDeviceSynchronize(), "sync");
  cudaFree(w);
  return 0;
}
