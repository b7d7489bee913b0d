// GEMMs of at most 128 rows that wait on a programmatic (PDL) edge (sm_90a: TMA + wgmma), for
// small buckets: out = in[m, k] . W[n, k]^T with fp32 accumulation, in three forms —
//   plain:    out[m, n] in T (one rounding, as cuBLASLt's output), optionally + bias[n] and ReLU in
//             fp32 before it (cuBLASLt's BIAS / RELU_BIAS epilogues);
//   partials: K split into `splits` ranges of whole 64-wide k-tiles, out[s][m][n] in fp32 (the
//             add+LN after the output GEMM sums them in order, AddLnParams::add_parts);
//   geglu:    W is Wi [2n, k] (act rows 0..n-1, mul rows n..2n-1) and out[m, n] =
//             T(T(gelu(T(act))) * T(mul)), exactly as geglu_kernel computes it from the rounded GEMM;
//   rope:     the plain form (no bias) whose 64-column blocks below rope_cols are rotary-embedded
//             heads: x = T(out) as the plain form rounds it, then for each token t and i < 32
//             T(x_i c - x_{i+32} s) and T(x_{i+32} c + x_i s) with c, s the tables' entries at
//             (pos[t] clamped to the table, i) — exactly what launch_rope (and attention's rotation
//             in its loads) computes from the plain output. Wide layout: a CTA's 64 W rows are
//             one head's dims, loaded so that dims j and j + 32 land in one thread's accumulators
//             (tma_tensor_map_row_pairs); narrow layout: a CTA's 32 W rows are 16 dims of a head and
//             the 16 dims 32 above them (two boxes), so column blocks c and c + 2 pair up. Either way
//             the thread rotates its pairs in registers, its tokens' table entries read before the
//             PDL wait. For the encoder's QKV GEMM: q and k leave it rotated (docs/benchmarks/
//             cuda.md item 134: 1x48 -0.020 ms against the rotation in attention; item 135: the
//             narrow layout).
// Why: cuBLASLt's nvjet kernels do not execute griddepcontrol.wait, so an edge into them cannot be
// programmatic, and the xmma kernels that do are 2.5-3.5x slower at 48 rows (docs/benchmarks/
// cuda.md item 54). This kernel requests its first stages' weight boxes before
// griddepcontrol.wait — the weights do not depend on the previous kernel — so with PDL (which the
// engine turns on for the buckets that use this kernel: PdlScope, pdl.h) its launch and weight
// fetch overlap the kernel before it. Measured: 1x48 1.012 -> 0.871 ms (items 57-58). Each W box is
// read once, by one CTA, so it is loaded L2 evict-first: the ~25 MB a layer of weights no longer
// evict the chain's code, constants and activations (item 201: 1x48 -0.019 ms). And it lets the next
// kernel launch only once it has requested all its operands, so that a small GEMM after it does not
// request its early weights during this one's whole loop (item 205: 1x48 -0.019 ms).
//
// Two layouts. Narrow: one CTA per 32 W rows (geglu: 16 act rows and their 16 mul rows) and K
// range; a producer thread streams 64 x 64 activation boxes (rows m..63 read as zeros) and 32 x 64
// W boxes by TMA (128-byte swizzle) through an 8-stage ring; one consumer warpgroup runs
// wgmma.m64n32k16 with the activations as M over them in K order, one k-tile's MMAs in flight while
// the next are issued. Wide (SmallGemmArgs::wide): 64 W rows a CTA (geglu: 32 outputs' act and mul
// rows, paired) as M and the m tokens padded to N = 16, 32, 48, 64 or 128 — twice the W rows per
// MMA for +8 % time at 48 tokens, half the CTAs reading the activations (docs/benchmarks/cuda.md
// items 70-71, 79); the engine takes it up to 48 tokens and from 65 (the narrow layout's limit is
// 64). Both deterministic and bitwise equal.
// (No thread-block clusters: sharing A between CTAs by TMA multicast made every GEMM slower —
// a kernel that may run in a cluster pays ~1 us a launch; docs/benchmarks/cuda.md item 61.)
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

enum class SmallGemmForm { plain, partials, geglu, rope };

// Diagnostics: with SmallGemmArgs::timeline set, an instrumented instance of the kernel records, per
// CTA c (blockIdx.y * gridDim.x + blockIdx.x), at timeline[c * kSmallGemmTimelineFields + 2 e] the
// %globaltimer (ns) and at + 1 the SM's clock64 of each event e below (thread 0: the consumers;
// weights_requested / producer_waited: the producer thread), and in the record's last field the
// SM id. For laya_bench_small_gemm_timeline (where a small GEMM's time in a chain goes).
enum class SmallGemmEvent {
  entry,              // the CTA started
  initialized,        // its barriers are set up (before the __syncthreads that publishes them)
  weights_requested,  // the producer requested the first stages' weights (before the PDL wait)
  producer_waited,    // the producer's griddepcontrol.wait returned
  consumer_waited,    // the consumers' griddepcontrol.wait returned
  first_stage,        // the first stage (A and W) arrived
  last_mma,           // the last MMA completed
  exit,               // the outputs are written
  count
};
constexpr int kSmallGemmTimelineFields = 2 * static_cast<int>(SmallGemmEvent::count) + 1;

template <class T>
struct SmallGemmArgs {
  const T* in = nullptr;  // [m, k] row-major, 16-byte aligned
  const T* w = nullptr;   // [n, k] row-major; geglu: [2 n, k]
  void* out = nullptr;    // T [m, n]; partials: float [splits, m, n]
  int32_t m = 0, n = 0, k = 0;
  SmallGemmForm form = SmallGemmForm::plain;
  int32_t splits = 1;        // partials only
  const T* bias = nullptr;   // plain only: [n], added in fp32 before the rounding
  bool relu = false;         // plain only, with a bias: max(0, .) after it
  bool wide = false;         // the wide layout: 64 W rows a CTA, the tokens as the MMA's N (small_gemm.cu)
  uint64_t* timeline = nullptr;  // diagnostics (SmallGemmEvent): runs the instrumented instance
  // rope only: positions [m] (read before the PDL wait: the staging block, written by the forward's
  // first kernel, which has completed by then — pdl_prologue, common.cuh), the RoPE tables
  // [rope_len, 32] (fp32), and the columns rotated (a multiple of 64: q and k of the QKV output).
  const int32_t* rope_pos = nullptr;
  const float* rope_cos = nullptr;
  const float* rope_sin = nullptr;
  int32_t rope_len = 0, rope_cols = 0;
};

// Whether the kernel runs on the current device (sm_90 built as sm_90a, TMA encoding available) and
// takes these dimensions: m <= 64 (wide: 128), k a multiple of 64, n a multiple of 32 (geglu: 16;
// wide: 64 and 32), at most one K range per 64-wide k-tile.
// (A bias is taken by the plain form only: launch_small_gemm checks.)
bool small_gemm_supported(int32_t m, int32_t n, int32_t k, SmallGemmForm form, int32_t splits = 1, bool wide = false);

template <class T>
void launch_small_gemm(const SmallGemmArgs<T>& a, cudaStream_t stream);

}  // namespace laya::cuda
