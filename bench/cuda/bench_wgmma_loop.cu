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

// N <= 64: the engine's wgmma (wgmma.cuh); N = 128 and 256 (the peak's calibration) here.
template <int N>
__device__ __forceinline__ void mma(float (&d)[N / 2], uint64_t da, uint64_t db) {
  laya::cuda::dev::wgmma_m64nNk16_ss<__nv_bfloat16, N>(d, da, db);
}
#ifdef LAYA_HAS_WGMMA
template <>
__device__ __forceinline__ void mma<128>(float (&d)[64], uint64_t da, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, 1, 1, 1, 0, 0;\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db));
}
template <>
__device__ __forceinline__ void mma<256>(float (&d)[128], uint64_t da, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, 1, 1, 1, 0, 0;\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
               : "l"(da), "l"(db));
}
#endif

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
