#include "backends/cuda/small_gemm.cuh"

#include <type_traits>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/tma.cuh"
#include "backends/cuda/wgmma.cuh"

namespace laya::cuda {

namespace {

constexpr int kBK = 64;      // K per stage: one 128-byte swizzle row
constexpr int kNarrowMaxM = 64;  // token rows the narrow layout takes (its activation box)
constexpr int kWideMaxM = 128;   // and the wide one (the MMA's N; 256 was far slower, item 80)
// The ring: the first kStages weight boxes are requested before the PDL wait. (4 and 6 stages were
// 0.03 / 0.12 ms slower at 1x48, 18 in the narrow layout and 16 in the wide one no faster:
// docs/benchmarks/cuda.md items 63, 69, 72.)
constexpr int kStages = 8;
constexpr int kThreads = 256;  // warpgroup 0 consumes, one thread of warpgroup 1 produces

// Where the operands go in wgmma m64nNk16 (M = 64 rows of operand A, N rows of operand B):
//   narrow (kWide false): A = the activation box (64 rows, rows m..63 zeros), B = 32 W rows a CTA
//     (geglu: 16 act rows, then their 16 mul rows), N = 32;
//   wide: A = 64 W rows a CTA (geglu: 32 act rows paired with their mul rows,
//     tma_tensor_map_act_mul), B = the m tokens padded to kN (16, 32, 48, 64 or 128) — one MMA covers
//     twice the W rows in about the same time at 48 tokens (item 70), so half as many CTAs read
//     the activations.
template <bool kWide, int kN>
struct Layout {
  static constexpr int kBRows = kWide ? kN : 32;                  // operand B's rows (the MMA's N)
  static constexpr int kARowsBytes = 64 * kBK * 2;                // operand A's box: 8 KB
  static constexpr int kStageBytes = kARowsBytes + kBRows * kBK * 2;  // both boxes 1024-byte aligned
  static constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;  // + barriers, slack
  static constexpr int kWRows = kWide ? 64 : 32;                  // W rows a CTA
  static constexpr int kXRows = kWide ? kN : 64;                  // rows of an activation box
  template <SmallGemmForm kForm>
  static constexpr int outputs() {  // output columns a CTA
    return kForm == SmallGemmForm::geglu ? kWRows / 2 : kWRows;
  }
};

// The rope form's inputs (SmallGemmArgs::rope_*); unused by the other forms.
struct RopeTables {
  const int32_t* pos;
  const float* cos;
  const float* sin;
  int len, cols;
};

#ifdef LAYA_HAS_WGMMA
using dev::mbar_arrive;
using dev::mbar_expect_tx;
using dev::mbar_init;
using dev::mbar_wait;
using dev::sw128_desc;
using dev::global_ns;
using dev::tma_load;

// Records event e of this CTA's timeline (kTimeline instances only): global ns and SM cycles.
__device__ __forceinline__ void stamp(uint64_t* rec, SmallGemmEvent e) {
  rec[2 * static_cast<int>(e)] = global_ns();
  rec[2 * static_cast<int>(e) + 1] = static_cast<uint64_t>(clock64());
}

// The bias values of this thread's outputs (plain form with a bias; zeros otherwise), loaded when the
// consumers start, before their wait: constants, so they arrive while the previous kernel finishes
// instead of after the MMAs (docs/benchmarks/cuda.md item 105). Narrow layout: the thread's 8 columns
// col0 + 8c + 2 (lane % 4) + e at 2c + e; wide: its output rows col0 + 16 warp + lane / 4 + 8h at h.
template <class T, SmallGemmForm kForm, bool kWide>
__device__ __forceinline__ void load_bias(float (&b)[8], const T* bias, int col0) {
#pragma unroll
  for (int i = 0; i < 8; ++i) b[i] = 0.f;
  if constexpr (kForm == SmallGemmForm::plain) {
    if (bias == nullptr) return;
    const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
    if constexpr (kWide) {
#pragma unroll
      for (int h = 0; h < 2; ++h) b[h] = static_cast<float>(bias[col0 + warp * 16 + (lane >> 2) + 8 * h]);
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) b[2 * c + e] = static_cast<float>(bias[col0 + 8 * c + 2 * (lane & 3) + e]);
    }
  }
}

// The narrow layout's outputs: accumulator register 4c + 2h + e is token row 16 warp + lane / 4 + 8h,
// W row col0 + 8c + 2 (lane % 4) + e. b: load_bias's values.
// rope_base >= 0 (the rope form's rotated heads): column block c is instead at rope_base + 8 (c % 2)
// + 32 (c / 2) (narrow_rope_rows).
template <class T, SmallGemmForm kForm>
__device__ __forceinline__ void store_narrow(const float (&d)[16], void* out, const float (&b)[8], bool has_bias,
                                             int relu, int m, int n, int col0, int split, int rope_base) {
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const int row = warp * 16 + (lane >> 2), col = 2 * (lane & 3);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = row + 8 * h;
    if (r >= m) continue;
    if constexpr (kForm == SmallGemmForm::geglu) {  // act in column blocks 0-1, mul in 2-3
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        float v[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float act = dev::round16<T>(d[4 * c + 2 * h + e]), mul = dev::round16<T>(d[4 * (c + 2) + 2 * h + e]);
          v[e] = __fmul_rn(dev::gelu16<T>(act), mul);
        }
        *reinterpret_cast<uint32_t*>(static_cast<T*>(out) + static_cast<size_t>(r) * n + col0 + 8 * c + col) =
            dev::pack16<T>(v[0], v[1]);
      }
    } else if constexpr (kForm == SmallGemmForm::partials) {
#pragma unroll
      for (int c = 0; c < 4; ++c)
        *reinterpret_cast<float2*>(static_cast<float*>(out) + (static_cast<size_t>(split) * m + r) * n + col0 + 8 * c +
                                   col) = make_float2(d[4 * c + 2 * h], d[4 * c + 2 * h + 1]);
    } else {
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        float v[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          v[e] = d[4 * c + 2 * h + e];
          if (has_bias) v[e] = __fadd_rn(v[e], b[2 * c + e]);
          if (relu) v[e] = fmaxf(v[e], 0.f);
        }
        const int cb = rope_base >= 0 ? rope_base + 8 * (c & 1) + 32 * (c >> 1) : col0 + 8 * c;
        *reinterpret_cast<uint32_t*>(static_cast<T*>(out) + static_cast<size_t>(r) * n + cb + col) =
            dev::pack16<T>(v[0], v[1]);
      }
    }
  }
}

// The wide layout's outputs: register 4c + 2h + e is W row (output) 16 warp + lane / 4 + 8h of the
// CTA's 64, token 8c + 2 (lane % 4) + e. Geglu: rows 16 warp + lane / 4 (h 0) and + 8 (h 1) are an
// output's act and mul (tma_tensor_map_act_mul), output col0 + 8 warp + lane / 4. 16-bit outputs
// go out in pairs of neighbouring columns: lanes l and l ^ 4 hold neighbouring outputs of the same
// tokens; each sends the other the value of the token the other stores. bias: load_bias's values.
template <class T, SmallGemmForm kForm, int kN>
__device__ __forceinline__ void store_wide(const float (&d)[kN / 2], void* out, const float (&bias)[8], bool has_bias,
                                           int relu, int m, int n, int col0, int split) {
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const int t0 = 2 * (lane & 3);   // + 8c: this thread's first token of column block c
  // fp16's GeGLU outputs read the accumulators through an identity shuffle: without it ptxas
  // serializes every wgmma of those instances (C7514; docs/benchmarks/cuda.md item 191). The same
  // values; bf16 needs no such step.
  auto settled = [lane](float x) {
    if constexpr (std::is_same_v<T, __half>)
      return __shfl_sync(0xffffffffu, x, lane);
    else
      return x;
  };
  const bool even = (lane & 4) == 0;  // holds the even output of its pair
  if constexpr (kForm == SmallGemmForm::partials) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int f = col0 + warp * 16 + (lane >> 2) + 8 * h;
#pragma unroll
      for (int c = 0; c < kN / 8; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int t = 8 * c + t0 + e;
          if (t < m) static_cast<float*>(out)[(static_cast<size_t>(split) * m + t) * n + f] = d[4 * c + 2 * h + e];
        }
    }
    return;
  }
  constexpr int kHalves = kForm == SmallGemmForm::geglu ? 1 : 2;  // geglu: h 1 is the mul half
#pragma unroll
  for (int h = 0; h < kHalves; ++h) {
    const int f = kForm == SmallGemmForm::geglu  ? col0 + warp * 8 + (lane >> 2)
                  : kForm == SmallGemmForm::rope ? col0 + warp * 8 + (lane >> 2) + 32 * h  // load_rope_regs
                                                 : col0 + warp * 16 + (lane >> 2) + 8 * h;
    const float b = bias[h];
#pragma unroll
    for (int c = 0; c < kN / 8; ++c) {
      float v[2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if constexpr (kForm == SmallGemmForm::geglu) {
          const float act = dev::round16<T>(settled(d[4 * c + e]));
          const float mul = dev::round16<T>(settled(d[4 * c + 2 + e]));
          v[e] = __fmul_rn(dev::gelu16<T>(act), mul);
        } else {
          v[e] = d[4 * c + 2 * h + e];
          if (has_bias) v[e] = __fadd_rn(v[e], b);
          if (relu) v[e] = fmaxf(v[e], 0.f);
        }
      }
      // even: (f, t) and (f + 1, t) at token t = 8c + t0; odd: (f - 1, t + 1) and (f, t + 1).
      const float other = __shfl_xor_sync(0xffffffffu, even ? v[1] : v[0], 4);
      const int t = 8 * c + t0 + (even ? 0 : 1);
      if (t < m)
        *reinterpret_cast<uint32_t*>(static_cast<T*>(out) + static_cast<size_t>(t) * n + (even ? f : f - 1)) =
            even ? dev::pack16<T>(v[0], other) : dev::pack16<T>(other, v[1]);
    }
  }
}

// The rope form: its W map (tma_tensor_map_row_pairs, pairs 32 rows apart) loads a head's 64 rows
// so that accumulator rows 16 w + l and 16 w + l + 8 are dims j = 8 w + l and j + 32 — the two
// halves RoPE rotates together — in the same thread. Before the consumers' PDL wait each thread
// reads its tokens' positions and the table entries of its frequency j (all in flight at once).
template <int kN>
__device__ __forceinline__ void load_rope_regs(float (&cs)[kN / 4], float (&sn)[kN / 4], const RopeTables& r, int m) {
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const int j = 8 * warp + (lane >> 2), t0 = 2 * (lane & 3);
  int pos[kN / 4];
#pragma unroll
  for (int i = 0; i < kN / 4; ++i) {  // token 8 (i / 2) + t0 + i % 2
    const int t = 8 * (i >> 1) + t0 + (i & 1);
    const int p = t < m ? __ldcg(r.pos + t) : 0;
    pos[i] = p < 0 ? 0 : (p >= r.len ? r.len - 1 : p);
  }
#pragma unroll
  for (int i = 0; i < kN / 4; ++i) {
    cs[i] = r.cos[pos[i] * 32 + j];
    sn[i] = r.sin[pos[i] * 32 + j];
  }
}

// The narrow layout's rope form: a CTA's 32 W rows are 16 dims of one head and the 16 dims 32 above
// them (two 16-row boxes), so accumulator column blocks c and c + 2 hold dims j and j + 32. The
// first rows of the two boxes, and where the rotated dims are stored (store_narrow's rope_base):
// CTA x covers head x / 2, dims 16 (x % 2) + [0, 16) and + 32. Columns from rope_cols on (v) are
// plain: 32 consecutive rows, rope_base -1.
__device__ __forceinline__ int narrow_rope_rows(int col0, int cols) {
  return col0 < cols ? (col0 / 64) * 64 + ((col0 / 32) & 1) * 16 : -1;
}

// Before the consumers' PDL wait, the narrow rope form's table entries: thread tokens
// 16 warp + lane / 4 + 8h, dims j0 + 8c + 2 (lane % 4) + e (c, e < 2) at index 4h + 2c + e.
__device__ __forceinline__ void load_rope_regs_narrow(float (&cs)[8], float (&sn)[8], const RopeTables& r, int m,
                                                      int j0) {
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  int pos[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int t = 16 * warp + (lane >> 2) + 8 * h;
    const int p = t < m ? __ldcg(r.pos + t) : 0;
    pos[h] = p < 0 ? 0 : (p >= r.len ? r.len - 1 : p);
  }
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int j = j0 + 8 * (i >> 1) + 2 * (lane & 3) + (i & 1);
      cs[4 * h + i] = r.cos[pos[h] * 32 + j];
      sn[4 * h + i] = r.sin[pos[h] * 32 + j];
    }
}

// The narrow counterpart of rotate_pairs: register 4c + 2h + e (c < 2) is dim j, 4(c + 2) + 2h + e
// dim j + 32, of token row h.
template <class T>
__device__ __forceinline__ void rotate_pairs_narrow(float (&d)[16], const float (&cs)[8], const float (&sn)[8]) {
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int c = 0; c < 2; ++c)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int i = 4 * h + 2 * c + e, lo = 4 * c + 2 * h + e, hi = lo + 8;
        const float x1 = dev::round16<T>(d[lo]), x2 = dev::round16<T>(d[hi]);
        d[lo] = __fadd_rn(__fmul_rn(x1, cs[i]), __fmul_rn(-x2, sn[i]));
        d[hi] = __fadd_rn(__fmul_rn(x2, cs[i]), __fmul_rn(x1, sn[i]));
      }
}

// After the last MMA: x1 = T(dim j), x2 = T(dim j + 32) as the plain form rounds them, rotated with
// rope_kernel's arithmetic term for term; store_wide's plain path rounds the results.
template <class T, int kN>
__device__ __forceinline__ void rotate_pairs(float (&d)[kN / 2], const float (&cs)[kN / 4], const float (&sn)[kN / 4]) {
#pragma unroll
  for (int c = 0; c < kN / 8; ++c)
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int i = 2 * c + e;
      const float x1 = dev::round16<T>(d[4 * c + e]), x2 = dev::round16<T>(d[4 * c + 2 + e]);
      d[4 * c + e] = __fadd_rn(__fmul_rn(x1, cs[i]), __fmul_rn(-x2, sn[i]));
      d[4 * c + 2 + e] = __fadd_rn(__fmul_rn(x2, cs[i]), __fmul_rn(x1, sn[i]));
    }
}
#endif

// blockIdx.x: the CTA's W rows (Layout::kWRows); blockIdx.y: its K range (partials).
// kTimeline: the diagnostic instance, which stamps the events of SmallGemmEvent into `timeline`.
template <class T, SmallGemmForm kForm, bool kWide, int kN, bool kTimeline>
__global__ void __launch_bounds__(kThreads, 1)
    small_gemm_kernel(const __grid_constant__ CUtensorMap x_map, const __grid_constant__ CUtensorMap w_map, void* out,
                      const T* bias, int relu, int m, int n, int k_tiles, int splits, uint64_t* timeline,
                      RopeTables rope) {
#ifdef LAYA_HAS_WGMMA
  using L = Layout<kWide, kN>;
  constexpr int kWOffset = kWide ? 0 : L::kARowsBytes, kXOffset = kWide ? L::kARowsBytes : 0;  // in a stage
  uint64_t* rec = nullptr;
  if constexpr (kTimeline) {
    rec = timeline + (static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x) * kSmallGemmTimelineFields;
    if (threadIdx.x == 0) {
      stamp(rec, SmallGemmEvent::entry);
      uint32_t sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      rec[kSmallGemmTimelineFields - 1] = sm;
    }
  }
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * L::kStageBytes);
  uint64_t* empty = full + kStages;
  // This CTA's k-tiles: range blockIdx.y of `splits` near-equal ranges.
  const int split = static_cast<int>(blockIdx.y);
  const int kt0 = split * k_tiles / splits, kt1 = (split + 1) * k_tiles / splits, tiles = kt1 - kt0;
  const int col0 = static_cast<int>(blockIdx.x) * L::template outputs<kForm>();  // first output column
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);   // the producer's expect_tx arrival; the bytes complete it
      mbar_init(&empty[s], 4);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    if constexpr (kTimeline) stamp(rec, SmallGemmEvent::initialized);
  }
  __syncthreads();
  if (threadIdx.x >= 128) {  // the producer warpgroup: one thread issues the loads
    if (threadIdx.x == 128) {
      // Each W box is read once, by this CTA alone: loaded as the L2's first lines to go, so the
      // lines read again a layer later (code, constants, activations) stay (item 201).
      const uint64_t policy = dev::l2_evict_first_policy();
      auto load_w = [&](int i, int s) {
        unsigned char* dst = smem + s * L::kStageBytes + kWOffset;
        const int kc = (kt0 + i) * kBK;
        if constexpr ((kForm == SmallGemmForm::geglu || kForm == SmallGemmForm::rope) && kWide) {
          dev::tma_load_4d(dst, &w_map, &full[s], kc, col0 / 8, policy);  // paired rows (act/mul; RoPE halves)
        } else if constexpr (kForm == SmallGemmForm::rope) {  // 16 dims, then the 16 dims 32 above
          const int r0 = narrow_rope_rows(col0, rope.cols);
          tma_load(dst, &w_map, &full[s], kc, r0 >= 0 ? r0 : col0, policy);
          tma_load(dst + (L::kWRows / 2) * kBK * 2, &w_map, &full[s], kc, r0 >= 0 ? r0 + 32 : col0 + 16, policy);
        } else if constexpr (kForm == SmallGemmForm::geglu) {  // 16 act rows, then their 16 mul rows
          tma_load(dst, &w_map, &full[s], kc, col0, policy);
          tma_load(dst + (L::kWRows / 2) * kBK * 2, &w_map, &full[s], kc, n + col0, policy);
        } else {
          tma_load(dst, &w_map, &full[s], kc, col0, policy);
        }
      };
      auto load_x = [&](int i, int s) {
        tma_load(smem + s * L::kStageBytes + kXOffset, &x_map, &full[s], (kt0 + i) * kBK, 0);
      };
      const int first = tiles < kStages ? tiles : kStages;
      for (int i = 0; i < first; ++i) {  // the weights do not depend on the previous kernel
        mbar_expect_tx(&full[i], L::kStageBytes);
        load_w(i, i);
      }
      if constexpr (kTimeline) stamp(rec, SmallGemmEvent::weights_requested);
      asm volatile("griddepcontrol.wait;\n" ::: "memory");  // the activations do
      if constexpr (kTimeline) stamp(rec, SmallGemmEvent::producer_waited);
      for (int i = 0; i < first; ++i) load_x(i, i);
      for (int i = first; i < tiles; ++i) {
        const int s = i % kStages;
        mbar_wait(&empty[s], ((i / kStages) - 1) & 1);
        mbar_expect_tx(&full[s], L::kStageBytes);
        load_w(i, s);
        load_x(i, s);
      }
      // The next kernel may launch once this CTA has requested all its operands, not at its wait:
      // a small GEMM after this one requests its first stages' weights as it launches, and during
      // this one's loop those compete with the weights this loop still streams (the MLP output
      // GEMM's 3.1 MB against the MLP input's second 5.4 MB at 48 tokens: docs/benchmarks/cuda.md
      // item 205, 1x48 -0.019 ms). A CTA of at most kStages k-tiles triggers right after its wait.
      asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
    }
    return;
  }
  float b[8];
  load_bias<T, kForm, kWide>(b, bias, col0);
  constexpr int kRopeRegs = kWide ? kN / 4 : 8;
  [[maybe_unused]] float cs[kRopeRegs], sn[kRopeRegs];
  [[maybe_unused]] const int rope_base = kForm == SmallGemmForm::rope && !kWide ? narrow_rope_rows(col0, rope.cols) : -1;
  if constexpr (kForm == SmallGemmForm::rope) {  // constants: before the wait
    if constexpr (kWide) {
      if (col0 < rope.cols) load_rope_regs<kN>(cs, sn, rope, m);
    } else if (rope_base >= 0) {
      load_rope_regs_narrow(cs, sn, rope, m, rope_base % 64);
    }
  }
  // The consumers write `out`, which the previous kernel may still read.
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  if constexpr (kTimeline)
    if (threadIdx.x == 0) stamp(rec, SmallGemmEvent::consumer_waited);
  constexpr int kRegs = L::kBRows / 2;
  float d[kRegs];
#pragma unroll
  for (int j = 0; j < kRegs; ++j) d[j] = 0.f;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  for (int i = 0; i < tiles; ++i) {
    const int s = i % kStages;
    mbar_wait(&full[s], (i / kStages) & 1);
    if constexpr (kTimeline)
      if (i == 0 && threadIdx.x == 0) stamp(rec, SmallGemmEvent::first_stage);
    const unsigned char* a = smem + s * L::kStageBytes;
    dev::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk)
      dev::wgmma_m64nNk16_ss<T, L::kBRows>(d, sw128_desc(a + kk * 32), sw128_desc(a + L::kARowsBytes + kk * 32));
    dev::wgmma_commit();
    dev::wgmma_wait<1>();  // the previous k-tile's MMAs are done: its stage goes back to the producer
    if (i > 0 && lane == 0) mbar_arrive(&empty[(i - 1) % kStages]);
  }
  dev::wgmma_wait<0>();
#pragma unroll
  for (int j = 0; j < kRegs; ++j) dev::fence_reg(d[j]);
  if constexpr (kTimeline)
    if (threadIdx.x == 0) stamp(rec, SmallGemmEvent::last_mma);
  if constexpr (kForm == SmallGemmForm::rope) {
    if constexpr (kWide) {
      if (col0 < rope.cols) rotate_pairs<T, kN>(d, cs, sn);
    } else if (rope_base >= 0) {
      rotate_pairs_narrow<T>(d, cs, sn);
    }
  }
  if constexpr (kWide)
    store_wide<T, kForm, kN>(d, out, b, bias != nullptr, relu, m, n, col0, split);
  else
    store_narrow<T, kForm>(d, out, b, bias != nullptr, relu, m, n, col0, split, rope_base);
  if constexpr (kTimeline)
    if (threadIdx.x == 0) stamp(rec, SmallGemmEvent::exit);
#endif
}

template <class T, SmallGemmForm kForm, bool kWide, int kN, bool kTimeline>
void launch_instance(const SmallGemmArgs<T>& a, cudaStream_t stream) {
  using L = Layout<kWide, kN>;
  constexpr auto kernel = small_gemm_kernel<T, kForm, kWide, kN, kTimeline>;
  static const bool configured = [&] {
    LAYA_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::kSmemBytes));
    return true;
  }();
  (void)configured;
  const bool geglu = kForm == SmallGemmForm::geglu;
  const CUtensorMap x_map = tma_tensor_map(a.in, a.m, a.k, L::kXRows);
  const bool rope_form = kForm == SmallGemmForm::rope;
  const CUtensorMap w_map =
      rope_form && kWide ? tma_tensor_map_row_pairs(a.w, a.n / 8, a.k, 32)  // a head's dims j, j + 32
      : geglu && kWide   ? tma_tensor_map_act_mul(a.w, a.n, a.k)
                         : tma_tensor_map(a.w, geglu ? 2 * a.n : a.n, a.k,
                                          static_cast<uint32_t>(geglu || rope_form ? L::kWRows / 2 : L::kWRows));
  const dim3 grid(static_cast<unsigned>(a.n / L::template outputs<kForm>()), static_cast<unsigned>(a.splits));
  const RopeTables rope{a.rope_pos, a.rope_cos, a.rope_sin, a.rope_len, a.rope_cols};
  launch_kernel_smem(kernel, grid, dim3(kThreads), L::kSmemBytes, stream, true, x_map, w_map, a.out,
                     a.bias, static_cast<int>(a.relu), a.m, a.n, a.k / kBK, a.splits, a.timeline, rope);
}

template <class T, SmallGemmForm kForm, bool kWide, int kN>
void launch_timeline_or_not(const SmallGemmArgs<T>& a, cudaStream_t stream) {
  if (a.timeline != nullptr)
    launch_instance<T, kForm, kWide, kN, true>(a, stream);
  else
    launch_instance<T, kForm, kWide, kN, false>(a, stream);
}

template <class T, SmallGemmForm kForm>
void launch_form(const SmallGemmArgs<T>& a, cudaStream_t stream) {
  if (!a.wide)
    launch_timeline_or_not<T, kForm, false, 32>(a, stream);
  else if (a.m <= 16)
    launch_timeline_or_not<T, kForm, true, 16>(a, stream);
  else if (a.m <= 32)
    launch_timeline_or_not<T, kForm, true, 32>(a, stream);
  else if (a.m <= 48)
    launch_timeline_or_not<T, kForm, true, 48>(a, stream);
  else if (a.m <= 64)
    launch_timeline_or_not<T, kForm, true, 64>(a, stream);
  else
    launch_timeline_or_not<T, kForm, true, 128>(a, stream);
}

}  // namespace

bool small_gemm_supported(int32_t m, int32_t n, int32_t k, SmallGemmForm form, int32_t splits, bool wide) {
  static const bool device_ok =
      sm90a_kernel_runs(small_gemm_kernel<__nv_bfloat16, SmallGemmForm::plain, false, 32, false>) &&
      tma_encode_available();
  const int32_t w_rows = wide ? 64 : 32, n_step = form == SmallGemmForm::geglu ? w_rows / 2 : w_rows;
  return device_ok && m >= 0 && m <= (wide ? kWideMaxM : kNarrowMaxM) && n > 0 && n % n_step == 0 && k > 0 &&
         k % kBK == 0 && splits >= 1 && splits <= k / kBK && (splits == 1 || form == SmallGemmForm::partials);
}

template <class T>
void launch_small_gemm(const SmallGemmArgs<T>& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.in && a.w && a.out && small_gemm_supported(a.m, a.n, a.k, a.form, a.splits, a.wide),
               ErrorKind::internal, "small_gemm: unsupported call (m {}, n {}, k {}, splits {}, wide {})", a.m, a.n, a.k,
               a.splits, a.wide);
  LAYA_REQUIRE((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.w)) % 16 == 0, ErrorKind::internal,
               "small_gemm: operands must be 16-byte aligned");
  LAYA_REQUIRE((a.bias == nullptr && !a.relu) || (a.form == SmallGemmForm::plain && a.bias != nullptr),
               ErrorKind::internal, "small_gemm: a bias (and ReLU, which needs one) in the plain form only");
  LAYA_REQUIRE(a.form != SmallGemmForm::rope ||
                   (a.rope_pos && a.rope_cos && a.rope_sin && a.rope_len > 0 && a.rope_cols >= 0 &&
                    a.rope_cols % 64 == 0 && a.rope_cols <= a.n &&
                    (reinterpret_cast<uintptr_t>(a.rope_cos) | reinterpret_cast<uintptr_t>(a.rope_sin)) % 16 == 0),
               ErrorKind::internal, "small_gemm: the rope form needs positions, 16-byte aligned tables, whole heads");
  if (a.m == 0) return;
  switch (a.form) {
    case SmallGemmForm::plain:
      launch_form<T, SmallGemmForm::plain>(a, stream);
      break;
    case SmallGemmForm::partials:
      launch_form<T, SmallGemmForm::partials>(a, stream);
      break;
    case SmallGemmForm::geglu:
      launch_form<T, SmallGemmForm::geglu>(a, stream);
      break;
    case SmallGemmForm::rope:
      launch_form<T, SmallGemmForm::rope>(a, stream);
      break;
  }
  LAYA_CUDA_CHECK_LAUNCH();
}

template void launch_small_gemm<__nv_bfloat16>(const SmallGemmArgs<__nv_bfloat16>&, cudaStream_t);
template void launch_small_gemm<__half>(const SmallGemmArgs<__half>&, cudaStream_t);

}  // namespace laya::cuda
