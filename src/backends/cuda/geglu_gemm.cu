#include "backends/cuda/geglu_gemm.cuh"

#include <cuda.h>

#include <algorithm>
#include <type_traits>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/gelu_lut.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/mma.cuh"
#include "backends/cuda/tile.h"
#include "backends/cuda/tma.cuh"
#include "backends/cuda/wgmma.cuh"

namespace laya::cuda {

namespace {

constexpr int kConsumers = 4;                     // consumer warpgroups, 64 rows each
constexpr int kBM = 64 * kConsumers;             // rows per CTA
constexpr int kBN = 64;                           // GeGLU output columns per CTA (64 act + 64 mul rows of W)
constexpr int kBK = 64;                           // K per stage: one 128-byte swizzle row
static_assert(kBM == kGegluGemmTileRows && kBN == kGegluGemmTileOutputs, "the host's tile geometry (tile.h)");
constexpr int kStages = 4;                        // TMA pipeline depth
constexpr int kATile = kBM * kBK * 2;             // 32 KB
constexpr int kBTile = 2 * kBN * kBK * 2;         // 16 KB
constexpr int kStageBytes = kATile + kBTile;
// bf16: the epilogue's T(gelu(act)) by table (gelu_lut.cuh), which each CTA copies into shared
// memory from the table of every pattern (GegluGemmArgs::gelu_all); the erf polynomial was ~30 of
// the epilogue's ~45 instructions per output. Measured: -2 % per call at 16x512
// (docs/benchmarks/cuda.md item 33).
constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + kGeluLutBytes + 1024;  // + barriers, table, alignment slack
// Warpgroups 0..kConsumers-1: consumers; warpgroup kConsumers: the producer. The launch gives every
// thread 96 registers (five warps share each scheduler's 16,384); the producer then gives up all but
// kProducerRegs and the consumers take kConsumerRegs (setmaxnreg): the deferred epilogue keeps 32
// packed pairs besides the 64 accumulators.
constexpr int kThreads = 128 * (kConsumers + 1);
constexpr int kProducerRegs = 24, kConsumerRegs = 112;
static_assert(kConsumers * 128 * (kConsumerRegs - 96) <= 128 * (96 - kProducerRegs), "register budget");

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LAYA_GEGLU_GEMM_BODY 1

using dev::mbar_arrive;
using dev::mbar_expect_tx;
using dev::mbar_init;
using dev::mbar_wait;
using dev::smem_u32;
using dev::sw128_desc;
using dev::tma_load;
using dev::wgmma_commit;
using dev::wgmma_fence;
using dev::wgmma_wait;

// d[64] += A[64 x 16] . B[128 x 16]^T (m64n128k16, fp32 accumulators; scale_d 0 overwrites d). The
// two 16-bit types differ only in the instruction's type suffix.
#define LAYA_WGMMA_D64_REGS \
  "{" "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24," \
  "%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46," \
  "%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63" "}"
#define LAYA_WGMMA_D64_OPERANDS \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), \
    "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), \
    "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), \
    "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), \
    "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), \
    "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), \
    "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), \
    "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define LAYA_WGMMA_M64N128K16(PTX_TYPE)                                                                 \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                            \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." PTX_TYPE "." PTX_TYPE " " LAYA_WGMMA_D64_REGS \
               ", %64, %65, p, 1, 1, 0, 0;\n}\n"                                                      \
               : LAYA_WGMMA_D64_OPERANDS                                                                \
               : "l"(da), "l"(db), "r"(scale_d))
template <class T>
__device__ __forceinline__ void wgmma_m64n128k16(float (&d)[64], uint64_t da, uint64_t db, int scale_d) {
  if constexpr (std::is_same_v<T, __half>)
    LAYA_WGMMA_M64N128K16("f16");
  else
    LAYA_WGMMA_M64N128K16("bf16");
}
#undef LAYA_WGMMA_M64N128K16
#undef LAYA_WGMMA_D64_OPERANDS
#undef LAYA_WGMMA_D64_REGS
#endif

#ifdef LAYA_GEGLU_GEMM_BODY
// The epilogue of a tile, in kChunks chunks of two outputs (one 4-byte store) per thread.
constexpr int kChunks = 16;

// Two GeGLU outputs from packed (act, mul) pairs — both halves already rounded to T, act in the low
// one — exactly as geglu_kernel computes them, T(T(gelu(act)) * mul), packed for one store. bf16:
// both table lookups are issued before either is used; an act outside the shared table (|act| <
// 2^-16 or >= 16, infinities, NaNs) is read from the global table of every pattern (gelu_all) in
// a branch taken rarely. That table, not the computed form, keeps the 16 unrolled chunks small:
// with erf's code in each of them the kernel spilled, and its MMA loop ran 4.5 us a call slower at
// 4x464 (docs/benchmarks/cuda.md item 168).
template <class T>
__device__ __forceinline__ uint32_t geglu_of_pairs(uint32_t p0, uint32_t p1, uint32_t lut_at,
                                                   const uint16_t* __restrict__ gelu_all) {
  using H = dev::Half16<T>;
  const uint32_t p[2] = {p0, p1};
  float act[2], mul[2], ga[2];
#pragma unroll
  for (int e = 0; e < 2; ++e) {
    typename H::Pair v;
    *reinterpret_cast<uint32_t*>(&v) = p[e];
    act[e] = H::to_float(v.x);
    mul[e] = H::to_float(v.y);
  }
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    bool in[2];
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const uint32_t slot = dev::gelu_lut_slot(p[e], in[e]);
      uint16_t g;
      asm("ld.shared.u16 %0, [%1];\n" : "=h"(g) : "r"(lut_at + 2 * slot));
      ga[e] = __uint_as_float(uint32_t{g} << 16);
    }
    if (!(in[0] && in[1])) {
#pragma unroll
      for (int e = 0; e < 2; ++e)
        if (!in[e]) ga[e] = __uint_as_float(uint32_t{__ldg(gelu_all + (p[e] & 0xFFFFu))} << 16);
    }
  } else {
#pragma unroll
    for (int e = 0; e < 2; ++e) ga[e] = dev::gelu16<T>(act[e]);
  }
  return dev::pack16<T>(__fmul_rn(ga[0], mul[0]), __fmul_rn(ga[1], mul[1]));
}

// Epilogue chunk j (0..kChunks-1; a constant once the callers' loops are unrolled) of a finished tile:
// accumulator chunk j / 2 holds columns 8 (j / 2) .. 8 (j / 2) + 7 of the tile, of which this thread
// holds two in rows row0 and row0 + 8; chunk j is the pair in row row0 + 8 (j % 2), from the packed
// pairs pk[2j], pk[2j + 1] (register 4i + 2h + e of the accumulators: row + 8h, column 8i + e).
template <class T>
__device__ __forceinline__ void epilogue_chunk(int j, const uint32_t (&pk)[32], T* out, int row0, int col0, int m,
                                               int inter, uint32_t lut_at, const uint16_t* __restrict__ gelu_all) {
  const int r = row0 + 8 * (j & 1);
  if (r < m)
    *reinterpret_cast<uint32_t*>(out + static_cast<size_t>(r) * inter + col0 + 8 * (j >> 1)) =
        geglu_of_pairs<T>(pk[2 * j], pk[2 * j + 1], lut_at, gelu_all);
}
#endif

// A tile's epilogue runs in kChunks chunks during the first kChunks k-tiles of the CTA's next tile,
// between issuing each k-tile's MMAs and waiting for them, so the tensor cores work while the GeGLU
// outputs are computed and stored (the CTA's last tile: after its loop). For that the finished
// accumulators are first packed into 32 (act, mul) pairs rounded to T — the rounding the epilogue
// applies anyway, so the outputs are bitwise those of an epilogue right after the tile's MMAs, which
// left the tensor cores idle for 15-20 % of the kernel (docs/benchmarks/cuda.md item 43).
template <class T>
__global__ void __launch_bounds__(kThreads, 1)
    geglu_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map, T* out,
                      int m, int k, int inter, int mma_rows, const uint16_t* __restrict__ gelu_all) {
#ifdef LAYA_GEGLU_GEMM_BODY
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  uint16_t* gelu_lut = reinterpret_cast<uint16_t*>(empty + kStages);  // bf16 bits, [sign][exponent][mantissa]
  uint32_t lut_at;  // opaque to the compiler, which would otherwise rebuild the address at every lookup
  asm("mov.u32 %0, %1;" : "=r"(lut_at) : "r"(smem_u32(gelu_lut)));
  const int k_tiles = k / kBK, n_tiles = inter / kBN, tiles = n_tiles * ((m + kBM - 1) / kBM);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);  // the producer's expect_tx arrival; the bytes complete it
      mbar_init(&empty[s], 4 * kConsumers);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  // Before the programmatic wait, what does not come from the previous kernel (docs/benchmarks/
  // cuda.md item 176): the producer requests the W boxes of the CTA's first stages (weights, from
  // DRAM: the longest trip of the kernel's start), and the consumers copy the GELU table into shared
  // memory from the table of every pattern (its two 5 KB ranges; the same entries gelu_lut_entry
  // computes) — computing them here took ≈ 1.6 us after the wait, and the first stage's W boxes
  // arrived ≈ 1.9 us after it. The copy is waited for only before the first epilogue chunk, after
  // the CTA's first tile (table_ready below).
  const int wg = static_cast<int>(threadIdx.x) / 128, tid = static_cast<int>(threadIdx.x) % 128;
  const int early = k_tiles < kStages ? k_tiles : kStages;  // the grid holds at most `tiles` CTAs
  if (wg == kConsumers && tid == 0) {
    const int n0 = (static_cast<int>(blockIdx.x) % n_tiles) * kBN;
    for (int i = 0; i < early; ++i) {
      unsigned char* st = smem + i * kStageBytes;
      mbar_expect_tx(&full[i], kStageBytes);
      tma_load(st + kATile, &w_map, &full[i], i * kBK, n0);                      // act rows
      tma_load(st + kATile + kBTile / 2, &w_map, &full[i], i * kBK, inter + n0);  // their mul rows
    }
  }
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    if (wg < kConsumers) {
      // 640 chunks of 8 entries (16 bytes), each 8 consecutive patterns of one sign.
      static_assert(kGeluLutHalf % 8 == 0, "a chunk never spans the two signs");
      for (int j = static_cast<int>(threadIdx.x); j < kGeluLutEntries / 8; j += 128 * kConsumers)
        dev::cp_async16(gelu_lut + 8 * j, gelu_all + dev::gelu_lut_pattern(8 * j), true);
      dev::cp_async_commit();
    }
  }
  dev::pdl_prologue();  // the activations come from the previous kernel
  // Persistent: CTA b takes tiles b, b + grid, ... (output column tiles fastest, so the CTAs of a
  // wave share A rows). The stage ring runs on across tiles: the producer loads the next tile's
  // first stages while the consumers finish this one and run its epilogue.
  if (wg == kConsumers) {  // the producer warpgroup; one thread issues the loads
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
    if (tid == 0) {
      int it = 0;
      for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x)) {
        const int n0 = (t % n_tiles) * kBN, m0 = (t / n_tiles) * kBM;
        for (int i = 0; i < k_tiles; ++i, ++it) {
          const int s = it % kStages;
          unsigned char* st = smem + s * kStageBytes;
          if (it < early) {  // its W boxes are on their way
            tma_load(st, &a_map, &full[s], i * kBK, m0);
            continue;
          }
          if (it >= kStages) mbar_wait(&empty[s], ((it / kStages) - 1) & 1);
          mbar_expect_tx(&full[s], kStageBytes);
          tma_load(st, &a_map, &full[s], i * kBK, m0);
          tma_load(st + kATile, &w_map, &full[s], i * kBK, n0);                      // act rows
          tma_load(st + kATile + kBTile / 2, &w_map, &full[s], i * kBK, inter + n0);  // their mul rows
        }
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kConsumerRegs));
  // The GELU table's copy, complete and visible to every consumer: once, before the CTA's first
  // epilogue chunk (its second tile, or the epilogue after its loop). Named barrier 1 joins the
  // consumer warpgroups only; every consumer reaches it at the same tile, whatever path it takes.
  auto table_ready = [] {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      dev::cp_async_wait<0>();
      asm volatile("bar.sync 1, %0;\n" ::"n"(128 * kConsumers) : "memory");
    }
  };
  int tiles_done = 0;
  const int c = wg;  // this consumer's 64 rows of each tile
  const int warp = tid >> 5, lane = tid & 31;
  // Accumulator chunk i (columns 8i..8i+7) holds act columns for i < 8 and their mul partners for
  // i + 8; register 4i + 2h + e is row (warp row + 8h), column 8i + 2 (lane % 4) + e.
  const int row_in_tile = c * 64 + warp * 16 + (lane >> 2), col_in_tile = 2 * (lane & 3);
  uint32_t pk[32];             // the finished tile's (act, mul) pairs, rounded to T
  int pk_row = -1, pk_col = 0;  // where they go (pk_row < 0: nothing pending)
  int it = 0;
  for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x), ++tiles_done) {
    if (tiles_done == 1) table_ready();
    const int n0 = (t % n_tiles) * kBN, m0 = (t / n_tiles) * kBM;
    // The first kChunks k-tiles each carry one chunk of the previous tile's epilogue.
    const bool pending = pk_row >= 0;
    // A consumer whose 64 rows of the tile all lie at or past mma_rows (the last row tile of an M
    // that is not a multiple of 256, where skips_rows_past_m) issues no MMAs — its rows are never
    // stored — but still waits for each stage and releases it, so the ring runs as for the others,
    // and runs the previous tile's epilogue chunks. The condition is broadcast from lane 0 so that
    // ptxas sees it uniform across the warp (else it serialises every wgmma of the kernel around the
    // branch), and the accumulators live inside the MMA path only (else it injects fences before
    // the MMAs).
    if (__shfl_sync(0xffffffffu, static_cast<int>(m0 + c * 64 >= mma_rows), 0) != 0) {
      auto pass = [&] {  // one k-tile's stage, waited for and released
        const int s = it % kStages;
        mbar_wait(&full[s], (it / kStages) & 1);
        if (lane == 0) mbar_arrive(&empty[s]);
        ++it;
      };
#pragma unroll
      for (int i = 0; i < kChunks; ++i) {  // unrolled: the chunks index pk by constants
        if (i < k_tiles) pass();
        if (pending) epilogue_chunk<T>(i, pk, out, pk_row, pk_col, m, inter, lut_at, gelu_all);
      }
      for (int i = kChunks; i < k_tiles; ++i) pass();
      pk_row = -1;
      continue;
    }
    float acc[64];
#pragma unroll
    for (int j = 0; j < 64; ++j) acc[j] = 0.f;
    // k-tile i: wait for its stage and issue its MMAs; then keep them in flight and release the
    // previous k-tile's stage once its MMAs are done, so the warpgroup issues the next ones without
    // draining the tensor pipe.
    auto mma = [&] {
      const int s = it % kStages;
      mbar_wait(&full[s], (it / kStages) & 1);
      const unsigned char* a_tile = smem + s * kStageBytes + c * (kATile / kConsumers);
      const unsigned char* b_tile = smem + s * kStageBytes + kATile;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBK / 16; ++kk)
        wgmma_m64n128k16<T>(acc, sw128_desc(a_tile + kk * 32), sw128_desc(b_tile + kk * 32), 1);
      wgmma_commit();
    };
    auto retire = [&](int i) {
      wgmma_wait<1>();
      if (i > 0 && lane == 0) mbar_arrive(&empty[(it - 1) % kStages]);
      ++it;
    };
#pragma unroll
    for (int i = 0; i < kChunks; ++i) {
      if (i < k_tiles) mma();
      if (pending) epilogue_chunk<T>(i, pk, out, pk_row, pk_col, m, inter, lut_at, gelu_all);
      if (i < k_tiles) retire(i);
    }
    for (int i = kChunks; i < k_tiles; ++i) {
      mma();
      retire(i);
    }
    wgmma_wait<0>();
    if (lane == 0) mbar_arrive(&empty[(it - 1) % kStages]);
#pragma unroll
    for (int j = 0; j < 64; ++j) dev::fence_reg(acc[j]);  // read only after the wait
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) pk[4 * i + j] = dev::pack16<T>(acc[4 * i + j], acc[4 * (i + 8) + j]);
    pk_row = m0 + row_in_tile;
    pk_col = n0 + col_in_tile;
  }
  if (tiles_done == 1) table_ready();
  if (pk_row >= 0) {
#pragma unroll
    for (int j = 0; j < kChunks; ++j) epilogue_chunk<T>(j, pk, out, pk_row, pk_col, m, inter, lut_at, gelu_all);
  }
#endif
}

}  // namespace

bool geglu_gemm_supported(int32_t k, int32_t inter) {
  static const bool device_ok = sm90a_kernel_runs(geglu_gemm_kernel<__nv_bfloat16>) && tma_encode_available();
  return device_ok && k > 0 && k % kBK == 0 && inter > 0 && inter % kBN == 0;
}

// Whether the warpgroups without rows skip their MMAs (GegluGemmArgs::skip_rows_past_m): only where
// every tile of the kernel's last round lies in the last row tile, so that the last round gets
// shorter. Measured on the H200 (docs/benchmarks/cuda.md item 163): 4x416 / 13x128 (1,664 tokens:
// a last round of 23 such tiles) -0.049 / -0.057 ms; at 4x464 (1,920 tokens: a last round of 41
// such tiles and 23 full ones) skipping cannot shorten the kernel (measured +0.012, within noise),
// so its kernel stays as it was.
template <class T>
bool skips_rows_past_m(const GegluGemmArgs<T>& a, int grid) {
  const int row_tiles = (a.m + kBM - 1) / kBM, n_tiles = a.inter / kBN, tiles = row_tiles * n_tiles;
  const int last_round = tiles - (tiles - 1) / grid * grid;
  return a.skip_rows_past_m && a.m % kBM != 0 && a.m % kBM <= kBM - 64 && last_round <= n_tiles;
}

template <class T>
void launch_geglu_gemm(const GegluGemmArgs<T>& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.in && a.w && a.out && a.m >= 0 && geglu_gemm_supported(a.k, a.inter), ErrorKind::internal,
               "geglu_gemm: unsupported call (m {}, k {}, inter {})", a.m, a.k, a.inter);
  LAYA_REQUIRE((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.w)) % 16 == 0, ErrorKind::internal,
               "geglu_gemm: operands must be 16-byte aligned");
  LAYA_REQUIRE(a.gelu_all != nullptr || !(std::is_same_v<T, __nv_bfloat16>), ErrorKind::internal,
               "geglu_gemm: bf16 needs the GELU table of every pattern (launch_fill_gelu_all)");
  if (a.m == 0) return;
  static const bool configured = [] {
    LAYA_CUDA_CHECK(cudaFuncSetAttribute(geglu_gemm_kernel<__nv_bfloat16>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    LAYA_CUDA_CHECK(cudaFuncSetAttribute(geglu_gemm_kernel<__half>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return true;
  }();
  (void)configured;
  const CUtensorMap a_map = tma_tensor_map(a.in, a.m, a.k, kBM);
  const CUtensorMap w_map = tma_tensor_map(a.w, 2 * a.inter, a.k, kBN);
  static const int sms = [] {
    int dev = 0, n = 0;
    LAYA_CUDA_CHECK(cudaGetDevice(&dev));
    LAYA_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  const int tiles = (a.inter / kBN) * ((a.m + kBM - 1) / kBM);
  // One CTA per SM (shared memory), or fewer when the caller caps the grid.
  const dim3 grid(static_cast<unsigned>(std::min(tiles, a.max_ctas > 0 ? std::min(a.max_ctas, sms) : sms)));
  const int mma_rows = skips_rows_past_m(a, static_cast<int>(grid.x)) ? a.m : (a.m + kBM - 1) / kBM * kBM;
  launch_kernel_smem(geglu_gemm_kernel<T>, grid, dim3(kThreads), kSmemBytes, stream, true, a_map, w_map, a.out, a.m,
                     a.k, a.inter, mma_rows, a.gelu_all);
  LAYA_CUDA_CHECK_LAUNCH();
}

template void launch_geglu_gemm<__nv_bfloat16>(const GegluGemmArgs<__nv_bfloat16>&, cudaStream_t);
template void launch_geglu_gemm<__half>(const GegluGemmArgs<__half>&, cudaStream_t);

}  // namespace laya::cuda
