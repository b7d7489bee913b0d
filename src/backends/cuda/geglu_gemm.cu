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
constexpr int kBK = 64;                           // K per stage: one 128-byte swizzle row
// Warpgroups 0..kConsumers-1: consumers; after them the producer (Tile::kThreads).
constexpr int kProducerRegs = 24, kConsumerRegs = 112;
static_assert(kConsumers * 128 * (kConsumerRegs - 96) <= 128 * (96 - kProducerRegs), "register budget");

// A consumer warpgroup's part of a tile: 64 rows x kOut GeGLU output columns (40, 64 or 80): its W
// rows are the kOut act rows and their kOut mul rows, so it runs wgmma m64nNk16 with N = 2 kOut and
// holds kOut accumulators a thread — act column c and its mul partner c + kOut in the same thread.
// The four consumers cover the tile as kRowGroups x kCols such parts: 256 rows x kOut outputs
// (kCols 1; tile.h's 256 x 64 is the default) or 128 rows x 2 kOut (kCols 2, kOut 40: the
// experiment of item 225 — 128 x 80 tiles, whose W tile is [act, mul] of the first 40 outputs then
// [act, mul] of the next 40, so that each consumer's 80 W rows are contiguous).
// With a producer warpgroup the launch gives every thread 96 registers (five warps share each
// scheduler's 16,384); the producer then gives up all but kProducerRegs and the consumers take
// kConsumerRegs (setmaxnreg; ptxas allocates the consumers' code within it — registers past R95
// appear only after USETMAXREG.TRY_ALLOC in the SASS). 64 outputs: the epilogue is deferred into
// the next tile's MMAs (the 32 packed pairs it keeps fit beside the 64 accumulators). 80 outputs,
// with a producer warpgroup (kProducer): the epilogue right after the tile (with half of it
// deferred, 20 pairs beside the 80 accumulators, 112 registers spill ≈ 100 bytes); without one
// (every thread 128 registers, 512 threads): the warp that releases a stage last refills it, and
// the epilogue runs right after the tile or half of it during the next tile (kDefer).
template <int kOut, int kCols, int kDefer, bool kProducer, int kRing>
struct Tile {
  static_assert(kOut == 40 || kOut == 64 || kOut == 80, "a consumer's part is 40, 64 or 80 outputs wide");
  static_assert(kCols == 1 || (kCols == 2 && kOut == 40), "tiles of 256 x kOut, or of 128 x 80 in 40-output parts");
  // TMA pipeline depth: 4 stages; the 40-output parts' tiles also 5 (their stages are smaller, and
  // they are predicted to be bound by their loads: item 225).
  static_assert(kRing == 4 || (kRing == 5 && kOut == 40), "stages");
  static constexpr int kStages = kRing;
  static constexpr int kRowGroups = kConsumers / kCols;
  static constexpr int kBM = 64 * kRowGroups;              // rows a tile
  static constexpr int kTileOut = kOut * kCols;            // GeGLU outputs a tile
  static constexpr int kATile = kBM * kBK * 2;             // 32 / 16 KB
  static constexpr int kN = 2 * kOut;                      // W rows a consumer's part, the MMA's N
  static constexpr int kAcc = kOut;                        // accumulators a consumer thread: 64 x kN / 128
  static constexpr int kPairs = kOut / 2;                  // (act, mul) pairs a thread: accumulators q and q + kPairs
  static constexpr int kChunks = kOut / 4;                 // epilogue chunks: two outputs (one 4-byte store) each
  static constexpr int kBPart = kN * kBK * 2;              // 10 / 16 / 20 KB: one consumer's W rows
  static constexpr int kBTile = kCols * kBPart;
  static constexpr int kStageBytes = kATile + kBTile;
  static constexpr bool kProducerWarpgroup = kProducer;
  // ptxas refuses an instruction needing more registers than the launch gives (96 with a producer
  // warpgroup), whatever setmaxnreg raises the consumers to: an m64n160k16 (80 accumulators) does
  // not compile there, so that form issues the act and the mul rows as two m64n80k16 (the same
  // products a column, in the same order over K).
  static constexpr bool kSplitMma = kOut == 80 && kProducer;
  // Epilogue chunks of a tile run during the next tile's first k-tiles (the rest right after it):
  // 64 outputs all of them; 80 outputs none or half (20 packed pairs fit beside 80 accumulators).
  static constexpr int kDeferChunks = kDefer;
  static_assert(kOut == 80 ? kDefer == 0 || (kDefer == kChunks / 2 && !kProducer) : kDefer == kChunks, "deferred chunks");
  static_assert(kOut == 80 || kProducer, "40- and 64-output parts have a producer warpgroup");
  static constexpr int kThreads = 128 * (kConsumers + (kProducerWarpgroup ? 1 : 0));
  // + barriers, release counters, the GELU table (gelu_lut.cuh; bf16: the epilogue's T(gelu(act)) by table, which
  // each CTA copies into shared memory from the table of every pattern — GegluGemmArgs::gelu_all;
  // the erf polynomial was ~30 of the epilogue's ~45 instructions per output, docs/benchmarks/
  // cuda.md item 33), alignment slack. The table's 16-byte cp.async copies need it 16-byte aligned:
  // the release counters are padded to a multiple of 16 bytes (5 stages: 100 bytes of barriers and
  // counters would leave it at 4 mod 16).
  static constexpr int kReleaseBytes = (4 * kStages + 15) / 16 * 16;
  static_assert((2 * kStages * 8 + kReleaseBytes) % 16 == 0 && kStageBytes % 1024 == 0, "the GELU table's alignment");
  static constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + kReleaseBytes + kGeluLutBytes + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "shared memory");
};
static_assert(Tile<64, 1, 16, true, 4>::kBM == kGegluGemmTileRows && Tile<64, 1, 16, true, 4>::kTileOut == kGegluGemmTileOutputs,
              "the host's tile geometry (tile.h): the default tiles");

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
#endif

#ifdef LAYA_GEGLU_GEMM_BODY
// Two GeGLU outputs from packed (act, mul) pairs — both halves already rounded to T, act in the low
// one — exactly as geglu_kernel computes them, T(T(gelu(act)) * mul), packed for one store. bf16:
// both table lookups are issued before either is used; an act outside the shared table (|act| <
// 2^-16 or >= 16, infinities, NaNs) is read from the global table of every pattern (gelu_all) in
// a branch taken rarely. That table, not the computed form, keeps the unrolled chunks small:
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
// (act, mul) pairs p0, p1 (pairs 2j and 2j + 1: accumulator q = 4i + 2h + e is row + 8h, column
// 8i + e, and its mul partner is accumulator q + kPairs). kCheckCols: columns past inter (an
// 80-output tile's last one where inter is not a multiple of 80) are not stored.
template <class T, bool kCheckCols>
__device__ __forceinline__ void epilogue_chunk(int j, uint32_t p0, uint32_t p1, T* out, int row0, int col0, int m,
                                               int inter, uint32_t lut_at, const uint16_t* __restrict__ gelu_all) {
  const int r = row0 + 8 * (j & 1), c = col0 + 8 * (j >> 1);
  if (r < m && (!kCheckCols || c < inter))
    *reinterpret_cast<uint32_t*>(out + static_cast<size_t>(r) * inter + c) = geglu_of_pairs<T>(p0, p1, lut_at, gelu_all);
}
#endif

// 64-output tiles: a tile's epilogue runs in kChunks chunks during the first kChunks k-tiles of the
// CTA's next tile, between issuing each k-tile's MMAs and waiting for them, so the tensor cores work
// while the GeGLU outputs are computed and stored (the CTA's last tile: after its loop). For that
// the finished accumulators are first packed into 32 (act, mul) pairs rounded to T — the rounding
// the epilogue applies anyway, so the outputs are bitwise those of an epilogue right after the
// tile's MMAs, which left the tensor cores idle for 15-20 % of the kernel (docs/benchmarks/cuda.md
// item 43). 80-output tiles run it, or its last half, right after the tile's MMAs (Tile:
// registers); the outputs are the same bits (each output the same MMAs over K in the same order).
template <class T, int kOut, int kCols, int kDefer, bool kProducer, int kRing>
__global__ void __launch_bounds__(Tile<kOut, kCols, kDefer, kProducer, kRing>::kThreads, 1)
    geglu_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map, T* out,
                      int m, int k, int inter, int mma_rows, const uint16_t* __restrict__ gelu_all) {
#ifdef LAYA_GEGLU_GEMM_BODY
  using L = Tile<kOut, kCols, kDefer, kProducer, kRing>;
  constexpr int kBM = L::kBM, kATile = L::kATile, kTileOut = L::kTileOut, kStages = L::kStages;
  constexpr int kChunks = L::kChunks, kPairs = L::kPairs, kStageBytes = L::kStageBytes;
  // Deferred: the first kChunks k-tiles of a tile each carry one chunk of the previous tile's
  // epilogue (unrolled: the chunks index pk by constants).
  constexpr int kCarriers = L::kDeferChunks;
  constexpr bool kCheckCols = kOut != 64;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  uint32_t* releases = reinterpret_cast<uint32_t*>(empty + kStages);  // without a producer warpgroup
  uint16_t* gelu_lut = reinterpret_cast<uint16_t*>(reinterpret_cast<unsigned char*>(releases) + L::kReleaseBytes);  // bf16 bits, [sign][exponent][mantissa]
  uint32_t lut_at;  // opaque to the compiler, which would otherwise rebuild the address at every lookup
  asm("mov.u32 %0, %1;" : "=r"(lut_at) : "r"(smem_u32(gelu_lut)));
  const int k_tiles = k / kBK, n_tiles = (inter + kTileOut - 1) / kTileOut, tiles = n_tiles * ((m + kBM - 1) / kBM);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);  // the producer's expect_tx arrival; the bytes complete it
      mbar_init(&empty[s], 4 * kConsumers);  // one arrival per consumer warp
      releases[s] = 0;
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  // Before the programmatic wait, what does not come from the previous kernel (docs/benchmarks/
  // cuda.md item 176): the producer requests the W boxes of the CTA's first stages (weights, from
  // DRAM: the longest trip of the kernel's start), and the consumers copy the GELU table into shared
  // memory from the table of every pattern (its two 5 KB ranges; the same entries gelu_lut_entry
  // computes) — computing them here took ≈ 1.6 us after the wait, and the first stage's W boxes
  // arrived ≈ 1.9 us after it. The copy is waited for only before the first epilogue chunk
  // (table_ready below).
  const int wg = static_cast<int>(threadIdx.x) / 128, tid = static_cast<int>(threadIdx.x) % 128;
  const int early = k_tiles < kStages ? k_tiles : kStages;  // the grid holds at most `tiles` CTAs
  // The loads: one thread of the producer warpgroup, or (80 outputs) the consumers' first thread.
  const bool producer = L::kProducerWarpgroup ? wg == kConsumers && tid == 0 : threadIdx.x == 0;
  // A stage's W boxes: for each consumer's part of the tile's columns, its act rows, then their mul
  // rows (past 2 inter: zeros, by TMA).
  auto load_w = [&](unsigned char* st, uint64_t* bar, int i, int n0) {
#pragma unroll
    for (int g = 0; g < kCols; ++g) {
      tma_load(st + kATile + g * L::kBPart, &w_map, bar, i * kBK, n0 + g * kOut);
      tma_load(st + kATile + g * L::kBPart + L::kBPart / 2, &w_map, bar, i * kBK, inter + n0 + g * kOut);
    }
  };
  // Persistent: CTA b takes tiles b, b + grid, ... (output column tiles fastest, so the CTAs of a
  // wave share A rows), k_tiles k-tiles each; the stage ring runs on across tiles, so the producer
  // loads the next tile's first stages while the consumers finish this one and run its epilogue.
  // produce(p) fills stage p % kStages with the CTA's k-tile p once every consumer warp released it
  // (with a producer warpgroup it waits for that; without one it is called by the last warp to
  // release the stage: release below).
  const int cta_k_tiles = k_tiles * ((tiles - static_cast<int>(blockIdx.x) + static_cast<int>(gridDim.x) - 1) /
                                     static_cast<int>(gridDim.x));
  auto produce = [&](int p) {
    if (p >= cta_k_tiles) return;
    const int t = static_cast<int>(blockIdx.x) + p / k_tiles * static_cast<int>(gridDim.x), i = p % k_tiles;
    const int s = p % kStages;
    unsigned char* st = smem + s * kStageBytes;
    if (p >= early) {  // (else its W boxes are on their way, and the stage's bytes expected)
      if (L::kProducerWarpgroup && p >= kStages) mbar_wait(&empty[s], ((p / kStages) - 1) & 1);
      mbar_expect_tx(&full[s], kStageBytes);
    }
    tma_load(st, &a_map, &full[s], i * kBK, (t / n_tiles) * kBM);
    if (p >= early) load_w(st, &full[s], i, (t % n_tiles) * kTileOut);
  };
  if (producer) {
    const int n0 = (static_cast<int>(blockIdx.x) % n_tiles) * kTileOut;
    for (int i = 0; i < early; ++i) {
      unsigned char* st = smem + i * kStageBytes;
      mbar_expect_tx(&full[i], kStageBytes);
      load_w(st, &full[i], i, n0);
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
  if constexpr (L::kProducerWarpgroup) {
    if (wg == kConsumers) {  // the producer warpgroup
      asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kProducerRegs));
      if (tid == 0)
        for (int p = 0; p < cta_k_tiles; ++p) produce(p);
      return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kConsumerRegs));
  }
  // Without a producer warpgroup, the consumers' first thread issues the first stages' loads, and
  // each later stage's are issued by the warp that releases the stage last.
  if constexpr (!L::kProducerWarpgroup) {
    if (producer)
      for (int p = 0; p < kStages; ++p) produce(p);
  }
  // This warp is done with the CTA's k-tile r (its MMAs on the stage completed): with a producer
  // warpgroup it arrives on the stage's empty barrier; without one, the warp whose release is the
  // stage's last (a shared counter) refills it with k-tile r + kStages at once. The counter's reset
  // reaches the other warps before their next release of the stage: that needs the refill's full
  // barrier, which the refill's arrival (a release) completes.
  auto release = [&](int r) {
    if (threadIdx.x % 32 != 0) return;
    const int s = r % kStages;
    if constexpr (L::kProducerWarpgroup) {
      mbar_arrive(&empty[s]);
    } else if (atomicAdd(&releases[s], 1u) == 4 * kConsumers - 1) {
      releases[s] = 0;
      produce(r + kStages);
    }
  };
  // The GELU table's copy, complete and visible to every consumer: once, before the CTA's first
  // epilogue chunk (deferred: its second tile, or the epilogue after its loop; else its first
  // tile's epilogue). Named barrier 1 joins the consumer warpgroups only; every consumer reaches it
  // at the same tile, whatever path it takes.
  auto table_ready = [] {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
      dev::cp_async_wait<0>();
      asm volatile("bar.sync 1, %0;\n" ::"n"(128 * kConsumers) : "memory");
    }
  };
  int tiles_done = 0;
  const int c = wg / kCols, cg = wg % kCols;  // this consumer's 64 rows of each tile, and its part of the columns
  const int warp = tid >> 5, lane = tid & 31;
  const int row_in_tile = c * 64 + warp * 16 + (lane >> 2), col_in_tile = cg * kOut + 2 * (lane & 3);
  uint32_t pk[kCarriers > 0 ? 2 * kCarriers : 1];  // the deferred chunks' (act, mul) pairs, rounded to T
  int pk_row = -1, pk_col = 0;             // where they go (pk_row < 0: nothing pending)
  int it = 0;
  for (int t = static_cast<int>(blockIdx.x); t < tiles; t += static_cast<int>(gridDim.x), ++tiles_done) {
    if (kCarriers == kChunks ? tiles_done == 1 : tiles_done == 0) table_ready();
    const int n0 = (t % n_tiles) * kTileOut, m0 = (t / n_tiles) * kBM;
    const bool pending = kCarriers > 0 && pk_row >= 0;
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
        release(it);
        ++it;
      };
#pragma unroll
      for (int i = 0; i < kCarriers; ++i) {
        if (i < k_tiles) pass();
        if (pending) epilogue_chunk<T, kCheckCols>(i, pk[2 * i], pk[2 * i + 1], out, pk_row, pk_col, m, inter, lut_at, gelu_all);
      }
      for (int i = kCarriers; i < k_tiles; ++i) pass();
      pk_row = -1;
      continue;
    }
    float acc[L::kAcc];
#pragma unroll
    for (int j = 0; j < L::kAcc; ++j) acc[j] = 0.f;
    // k-tile i: wait for its stage and issue its MMAs; then keep them in flight and release the
    // previous k-tile's stage once its MMAs are done, so the warpgroup issues the next ones without
    // draining the tensor pipe.
    auto mma = [&] {
      const int s = it % kStages;
      mbar_wait(&full[s], (it / kStages) & 1);
      const unsigned char* a_tile = smem + s * kStageBytes + c * (kATile / L::kRowGroups);
      const unsigned char* b_tile = smem + s * kStageBytes + kATile + cg * L::kBPart;
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < kBK / 16; ++kk) {
        if constexpr (L::kSplitMma) {  // the act rows into acc[0, kPairs), their mul rows into the rest
          using Half = float[L::kAcc / 2];
          dev::wgmma_m64nNk16_ss<T, L::kN / 2>(*reinterpret_cast<Half*>(acc), sw128_desc(a_tile + kk * 32),
                                                sw128_desc(b_tile + kk * 32));
          dev::wgmma_m64nNk16_ss<T, L::kN / 2>(*reinterpret_cast<Half*>(acc + L::kAcc / 2), sw128_desc(a_tile + kk * 32),
                                                sw128_desc(b_tile + L::kBPart / 2 + kk * 32));
        } else {
          dev::wgmma_m64nNk16_ss<T, L::kN>(acc, sw128_desc(a_tile + kk * 32), sw128_desc(b_tile + kk * 32));
        }
      }
      wgmma_commit();
    };
    auto retire = [&](int i) {
      wgmma_wait<1>();
      if (i > 0) release(it - 1);
      ++it;
    };
#pragma unroll
    for (int i = 0; i < kCarriers; ++i) {
      if (i < k_tiles) mma();
      if (pending) epilogue_chunk<T, kCheckCols>(i, pk[2 * i], pk[2 * i + 1], out, pk_row, pk_col, m, inter, lut_at, gelu_all);
      if (i < k_tiles) retire(i);
    }
    for (int i = kCarriers; i < k_tiles; ++i) {
      mma();
      retire(i);
    }
    wgmma_wait<0>();
    release(it - 1);
#pragma unroll
    for (int j = 0; j < L::kAcc; ++j) dev::fence_reg(acc[j]);  // read only after the wait
#pragma unroll
    for (int q = 0; q < 2 * kCarriers; ++q) pk[q] = dev::pack16<T>(acc[q], acc[q + kPairs]);
    if constexpr (kCarriers > 0) {
      pk_row = m0 + row_in_tile;
      pk_col = n0 + col_in_tile;
    }
#pragma unroll
    for (int j = kCarriers; j < kChunks; ++j)
      epilogue_chunk<T, kCheckCols>(j, dev::pack16<T>(acc[2 * j], acc[2 * j + kPairs]),
                                    dev::pack16<T>(acc[2 * j + 1], acc[2 * j + 1 + kPairs]), out, m0 + row_in_tile,
                                    n0 + col_in_tile, m, inter, lut_at, gelu_all);
  }
  if constexpr (kCarriers > 0) {
    if (kCarriers == kChunks && tiles_done == 1) table_ready();
    if (pk_row >= 0) {
#pragma unroll
      for (int j = 0; j < kCarriers; ++j)
        epilogue_chunk<T, kCheckCols>(j, pk[2 * j], pk[2 * j + 1], out, pk_row, pk_col, m, inter, lut_at, gelu_all);
    }
  }
#endif
}

}  // namespace

bool geglu_gemm_supported(int32_t k, int32_t inter) {
  static const bool device_ok = sm90a_kernel_runs(geglu_gemm_kernel<__nv_bfloat16, 64, 1, 16, true, 4>) && tma_encode_available();
  return device_ok && k > 0 && k % kBK == 0 && inter > 0 && inter % 64 == 0;
}

// Whether the warpgroups without rows skip their MMAs (GegluGemmArgs::skip_rows_past_m): only where
// every tile of the kernel's last round lies in the last row tile, so that the last round gets
// shorter. Measured on the H200 (docs/benchmarks/cuda.md item 163): 4x416 / 13x128 (1,664 tokens:
// a last round of 23 such tiles) -0.049 / -0.057 ms; at 4x464 (1,920 tokens: a last round of 41
// such tiles and 23 full ones) skipping cannot shorten the kernel (measured +0.012, within noise),
// so its kernel stays as it was.
template <class T>
bool skips_rows_past_m(const GegluGemmArgs<T>& a, int grid, int tile_rows, int tile_outputs) {
  const int row_tiles = (a.m + tile_rows - 1) / tile_rows, n_tiles = (a.inter + tile_outputs - 1) / tile_outputs;
  const int tiles = row_tiles * n_tiles;
  const int last_round = tiles - (tiles - 1) / grid * grid;
  return a.skip_rows_past_m && a.m % tile_rows != 0 && a.m % tile_rows <= tile_rows - 64 && last_round <= n_tiles;
}

template <class T, int kOut, int kCols, int kDefer, bool kProducer, int kRing = 4>
void launch_geglu_gemm_tiles(const GegluGemmArgs<T>& a, cudaStream_t stream) {
  using L = Tile<kOut, kCols, kDefer, kProducer, kRing>;
  constexpr auto kernel = geglu_gemm_kernel<T, kOut, kCols, kDefer, kProducer, kRing>;
  static const bool configured = [] {
    LAYA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::kSmemBytes));
    return true;
  }();
  (void)configured;
  const CUtensorMap a_map = tma_tensor_map(a.in, a.m, a.k, L::kBM);
  const CUtensorMap w_map = tma_tensor_map(a.w, 2 * a.inter, a.k, kOut);
  static const int sms = [] {
    int dev = 0, n = 0;
    LAYA_CUDA_CHECK(cudaGetDevice(&dev));
    LAYA_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  const int tiles = (a.inter + L::kTileOut - 1) / L::kTileOut * ((a.m + L::kBM - 1) / L::kBM);
  // One CTA per SM (shared memory), or fewer when the caller caps the grid.
  const dim3 grid(static_cast<unsigned>(std::min(tiles, a.max_ctas > 0 ? std::min(a.max_ctas, sms) : sms)));
  const int mma_rows = skips_rows_past_m(a, static_cast<int>(grid.x), L::kBM, L::kTileOut)
                           ? a.m
                           : (a.m + L::kBM - 1) / L::kBM * L::kBM;
  launch_kernel_smem(kernel, grid, dim3(L::kThreads), L::kSmemBytes, stream, true, a_map, w_map, a.out, a.m, a.k,
                     a.inter, mma_rows, a.gelu_all);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_geglu_gemm(const GegluGemmArgs<T>& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.in && a.w && a.out && a.m >= 0 && geglu_gemm_supported(a.k, a.inter), ErrorKind::internal,
               "geglu_gemm: unsupported call (m {}, k {}, inter {})", a.m, a.k, a.inter);
  const bool t256 = a.tile_rows == 256, t128x80 = a.tile_rows == 128 && a.tile_outputs == 80;
  LAYA_REQUIRE((t256 && (a.tile_outputs == 40 || a.tile_outputs == 64 || a.tile_outputs == 80)) || t128x80,
               ErrorKind::internal, "geglu_gemm: tiles of {} x {} (256 x 40, 64 or 80; 128 x 80)", a.tile_rows,
               a.tile_outputs);
  LAYA_REQUIRE(!(a.producer_warpgroup && a.defer_half), ErrorKind::internal,
               "geglu_gemm: 80-output tiles with a producer warpgroup run their epilogue after each tile");
  LAYA_REQUIRE(!(a.producer_warpgroup || a.defer_half) || (t256 && a.tile_outputs == 80), ErrorKind::internal,
               "geglu_gemm: producer_warpgroup and defer_half choose among the 256 x 80 tiles' forms");
  LAYA_REQUIRE(a.stages == 4 || (a.stages == 5 && a.tile_outputs / (t128x80 ? 2 : 1) == 40), ErrorKind::internal,
               "geglu_gemm: {} stages (4; 5 for the tiles of 40-output parts)", a.stages);
  LAYA_REQUIRE((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.w)) % 16 == 0, ErrorKind::internal,
               "geglu_gemm: operands must be 16-byte aligned");
  LAYA_REQUIRE(a.gelu_all != nullptr || !(std::is_same_v<T, __nv_bfloat16>), ErrorKind::internal,
               "geglu_gemm: bf16 needs the GELU table of every pattern (launch_fill_gelu_all)");
  if (a.m == 0) return;
  if (t128x80)
    a.stages == 5 ? launch_geglu_gemm_tiles<T, 40, 2, 10, true, 5>(a, stream) : launch_geglu_gemm_tiles<T, 40, 2, 10, true>(a, stream);
  else if (a.tile_outputs == 40)
    a.stages == 5 ? launch_geglu_gemm_tiles<T, 40, 1, 10, true, 5>(a, stream) : launch_geglu_gemm_tiles<T, 40, 1, 10, true>(a, stream);
  else if (a.tile_outputs == 64)
    launch_geglu_gemm_tiles<T, 64, 1, 16, true>(a, stream);
  else if (a.producer_warpgroup)
    launch_geglu_gemm_tiles<T, 80, 1, 0, true>(a, stream);
  else if (a.defer_half)
    launch_geglu_gemm_tiles<T, 80, 1, 10, false>(a, stream);
  else
    launch_geglu_gemm_tiles<T, 80, 1, 0, false>(a, stream);
}

template void launch_geglu_gemm<__nv_bfloat16>(const GegluGemmArgs<__nv_bfloat16>&, cudaStream_t);
template void launch_geglu_gemm<__half>(const GegluGemmArgs<__half>&, cudaStream_t);

}  // namespace laya::cuda
