#include "backends/cuda/small_encoder.cuh"

#include <algorithm>

#include "backends/cuda/attention_mma.cuh"
#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/mma.cuh"
#include "backends/cuda/norm.cuh"

namespace laya::cuda {

namespace {

constexpr int kThreads = 256;  // 8 warps
constexpr int kWarps = kThreads / 32;
constexpr int kChunk = 64;     // K per pipeline stage
constexpr int kStride = 72;    // smem row of a stage (16-bit elements): conflict-free ldmatrix
constexpr int kStages = 6;  // 10 was slower (docs/benchmarks/cuda.md item 27)
constexpr int kRows = kSmallEncoderMaxTokens;  // A rows of a stage
constexpr int kMaxW = 64;                      // weight rows of a unit, at most
constexpr int kStageBytes = (kRows + kMaxW) * kStride * 2;
constexpr int kAccStride = kMaxW + 4;          // fp32 unit tile row in smem
constexpr int kAccBytes = 2 * kRows * kAccStride * 4;  // the unit's tile from up to two K-parts
constexpr int kGemmSmem = kStages * kStageBytes + kAccBytes;
constexpr int kAttnGroupSmem = static_cast<int>(attn::attention_smem_bytes<4, 1>());
constexpr int kSmemBytes = std::max(kGemmSmem, 2 * kAttnGroupSmem);

enum class Epilogue { store16, partials, geglu };

// One GEMM phase: C = A[tokens, k] . W^T over units of (kNW weight rows, one of `splits` K-slices).
//   store16:  out[r, n] = T(C)                  (W rows n; n_rows = W's rows)
//   partials: parts[s][r, n] = C over slice s   (fp32; summed in order by the next add+LN)
//   geglu:    W rows [c0, c0 + kNW/2) and [inter + c0, ...) form a unit; out[r, c] = geglu
template <class T>
struct GemmJob {
  const T* a = nullptr;
  const T* w = nullptr;
  int k = 0;       // reduction length (multiple of kChunk)
  int n_rows = 0;  // store16/partials: W rows (= output columns); geglu: inter (output columns)
  int splits = 1;
  T* out = nullptr;
  float* parts = nullptr;
};

template <class T>
__device__ __forceinline__ float geglu_value(float act, float mul) {
  // geglu_kernel's arithmetic on the GEMM outputs rounded to T (activation.cu)
  const float ga = dev::round16<T>(dev::gelu_erf(dev::round16<T>(act)));
  return __fmul_rn(ga, dev::round16<T>(mul));
}

// The loads of a GEMM phase for one CTA: each thread copies the same 16-byte pieces of every chunk
// (rows tid / 8 and tid / 8 + 32, column (tid % 8) * 8; A rows past the tokens are zero-filled, and
// its A pieces are the same for every unit), so a chunk costs a few pointer increments. The cursor
// walks the CTA's units and their chunks in order; gemm_prefetch_w and gemm_phase each run their
// own copy through the same sequence.
template <class T, int kNW, Epilogue kEp>
struct GemmLoader {
  static constexpr int kWLoads = kNW * 8 / kThreads;  // 16-byte W pieces per thread
  const GemmJob<T>& job;
  int n_tiles, chunks, my_units, li = 0, lk = 0, lk_end = 0, piece;
  size_t K;
  bool a_live[2], a_real[2];
  const T* a_src[2];
  const T* w_src[kWLoads];

  __device__ __forceinline__ GemmLoader(const GemmJob<T>& j, int tokens) : job(j) {
    const int tid = static_cast<int>(threadIdx.x), G = static_cast<int>(gridDim.x), b = static_cast<int>(blockIdx.x);
    n_tiles = kEp == Epilogue::geglu ? job.n_rows / (kNW / 2) : job.n_rows / kNW;
    chunks = job.k / kChunk;
    const int units = n_tiles * job.splits, mrows = (tokens + 15) / 16 * 16;
    my_units = b < units ? (units - b + G - 1) / G : 0;
    K = static_cast<size_t>(job.k);
    const int prow = tid >> 3, pcol = (tid & 7) * 8;
    piece = prow * kStride + pcol;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      a_live[i] = prow + 32 * i < mrows;
      a_real[i] = prow + 32 * i < tokens;
      a_src[i] = job.a + (a_real[i] ? prow + 32 * i : 0) * K + pcol;
    }
    if (my_units > 0) start_unit(0);
  }
  // Unit u of the phase: its n-tile and K-slice.
  __device__ __forceinline__ void unit(int i, int& nt, int& c0, int& c1) const {
    const int u = static_cast<int>(blockIdx.x) + i * static_cast<int>(gridDim.x), sp = u / n_tiles;
    nt = u % n_tiles;
    c0 = sp * chunks / job.splits;
    c1 = (sp + 1) * chunks / job.splits;
  }
  __device__ __forceinline__ void start_unit(int i) {
    int nt;
    unit(i, nt, lk, lk_end);
    const int prow = static_cast<int>(threadIdx.x) >> 3, pcol = (static_cast<int>(threadIdx.x) & 7) * 8;
#pragma unroll
    for (int j = 0; j < kWLoads; ++j) {
      const int r = prow + 32 * j;
      const int wrow = kEp == Epilogue::geglu ? (r < kNW / 2 ? 0 : job.n_rows) + nt * (kNW / 2) + (r & (kNW / 2 - 1))
                                              : nt * kNW + r;
      w_src[j] = job.w + static_cast<size_t>(wrow) * K + pcol + static_cast<size_t>(lk) * kChunk;
    }
  }
  // The next chunk's A and/or W pieces into `slot`, as one commit group (empty past the last chunk).
  __device__ __forceinline__ void next(unsigned char* smem, int slot, bool a, bool w) {
    if (li < my_units) {
      T* as = reinterpret_cast<T*>(smem + slot * kStageBytes);
      T* ws = as + kRows * kStride;
      const size_t k0 = static_cast<size_t>(lk) * kChunk;
#pragma unroll
      for (int j = 0; j < 2; ++j)
        if (a && a_live[j]) dev::cp_async16(as + piece + 32 * j * kStride, a_src[j] + k0, a_real[j]);
#pragma unroll
      for (int j = 0; j < kWLoads; ++j) {
        if (w) dev::cp_async16(ws + piece + 32 * j * kStride, w_src[j], true);
        w_src[j] += kChunk;
      }
      if (++lk == lk_end && ++li < my_units) start_unit(li);
    }
    dev::cp_async_commit();
  }
};

// Before the barrier that ends the previous phase: the W pieces of this CTA's first kStages - 1
// chunks of the next GEMM phase (they do not depend on the activations), so that phase only waits
// for its A pieces. gemm_phase(..., true) then issues the same chunks' A pieces: one commit group
// per chunk in the same order, so its waits hold.
template <class T, int kNW, Epilogue kEp>
__device__ __noinline__ void gemm_prefetch_w(const GemmJob<T> job, const int tokens, unsigned char* smem) {
  __syncthreads();  // every warp of this CTA is done with the shared memory of the phase before
  GemmLoader<T, kNW, kEp> ld(job, tokens);
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) ld.next(smem, s, false, true);
}

// The GEMM phase. Warp w computes n8 tile (w % kNT8) of the unit for every 16-row block of A over
// K-part (w / kNT8) of each chunk (kKP parts of 64 / kKP); the parts meet in shared memory. The
// loads run kStages - 1 chunks ahead across the CTA's units.
template <class T, int kNW, Epilogue kEp>
__device__ __noinline__ void gemm_phase(const GemmJob<T> job, const int tokens, unsigned char* smem, bool w_prefetched) {
  constexpr int kNT8 = kNW / 8, kKP = kWarps / kNT8, kSteps = 4 / kKP;  // k16 steps per part and chunk
  static_assert(kNW == 32 || kNW == 64, "units of 32 or 64 weight rows");
  static_assert(kEp != Epilogue::geglu || kNW == 64, "GeGLU units: 32 act + 32 mul rows");
  const int tid = static_cast<int>(threadIdx.x), warp = tid >> 5, lane = tid & 31;
  const int mblocks = (tokens + 15) / 16;
  GemmLoader<T, kNW, kEp> ld(job, tokens);
  const int my_units = ld.my_units;
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) ld.next(smem, s, true, !w_prefetched);
  float* acc_s = reinterpret_cast<float*>(smem + kStages * kStageBytes);
  const int nt8 = warp % kNT8, kp = warp / kNT8;
  const int g = lane >> 2, tig = lane & 3;
  // ldmatrix offsets inside a stage (16-bit elements): B rows of this warp's n8 tile at its K-part,
  // A rows of each 16-row block.
  const int b_off = kRows * kStride + (nt8 * 8 + (lane & 7)) * kStride + kp * kSteps * 16 + (lane >> 3) * 8;
  const int a_off = (lane & 15) * kStride + kp * kSteps * 16 + (lane >> 4) * 8;
  int slot = 0;
  for (int i = 0; i < my_units; ++i) {
    int nt, c0, c1;
    ld.unit(i, nt, c0, c1);
    const int sp = (static_cast<int>(blockIdx.x) + i * static_cast<int>(gridDim.x)) / ld.n_tiles;
    float acc[4][4];
#pragma unroll
    for (int m = 0; m < 4; ++m) acc[m][0] = acc[m][1] = acc[m][2] = acc[m][3] = 0.f;
    for (int c = c0; c < c1; ++c) {
      dev::cp_async_wait<kStages - 2>();
      __syncthreads();  // the chunk is visible to all; everyone is done with the slot loaded next
      ld.next(smem, slot == 0 ? kStages - 1 : slot - 1, true, true);
      const T* st = reinterpret_cast<const T*>(smem + slot * kStageBytes);
#pragma unroll
      for (int h = 0; h < kSteps; h += 2) {  // two k16 steps per B ldmatrix (kSteps is 2 or 4)
        uint32_t bf[4];
        dev::ldmatrix_x4(bf, st + b_off + h * 16);
#pragma unroll
        for (int m = 0; m < 4; ++m)
          if (m < mblocks) {
            uint32_t af[4];
            dev::ldmatrix_x4(af, st + a_off + m * 16 * kStride + h * 16);
            dev::mma16<T>(acc[m], af, bf[0], bf[1]);
            dev::ldmatrix_x4(af, st + a_off + m * 16 * kStride + h * 16 + 16);
            dev::mma16<T>(acc[m], af, bf[2], bf[3]);
          }
      }
      slot = slot + 1 == kStages ? 0 : slot + 1;
    }
    // The parts' tiles to shared memory, then the epilogue over the unit by every thread.
    float* mine = acc_s + kp * kRows * kAccStride;
#pragma unroll
    for (int m = 0; m < 4; ++m)
      if (m < mblocks) {
        const int r = m * 16 + g, col = nt8 * 8 + tig * 2;
        *reinterpret_cast<float2*>(mine + r * kAccStride + col) = make_float2(acc[m][0], acc[m][1]);
        *reinterpret_cast<float2*>(mine + (r + 8) * kAccStride + col) = make_float2(acc[m][2], acc[m][3]);
      }
    __syncthreads();
    auto sum = [&](int r, int col) {
      float v = acc_s[r * kAccStride + col];
      if constexpr (kKP == 2) v = __fadd_rn(v, acc_s[kRows * kAccStride + r * kAccStride + col]);
      return v;
    };
    if constexpr (kEp == Epilogue::geglu) {
      constexpr int kHalf = kNW / 2;
      for (int e = tid; e < tokens * (kHalf / 2); e += kThreads) {
        const int r = e / (kHalf / 2), c = (e % (kHalf / 2)) * 2;
        const float g0 = geglu_value<T>(sum(r, c), sum(r, kHalf + c));
        const float g1 = geglu_value<T>(sum(r, c + 1), sum(r, kHalf + c + 1));
        *reinterpret_cast<typename dev::Half16<T>::Pair*>(job.out + static_cast<size_t>(r) * job.n_rows + nt * kHalf + c) =
            dev::Half16<T>::from_float2(g0, g1);
      }
    } else {
      for (int e = tid; e < tokens * (kNW / 2); e += kThreads) {
        const int r = e / (kNW / 2), c = (e % (kNW / 2)) * 2;
        const float v0 = sum(r, c), v1 = sum(r, c + 1);
        const size_t at = static_cast<size_t>(r) * job.n_rows + nt * kNW + c;
        if constexpr (kEp == Epilogue::store16)
          *reinterpret_cast<typename dev::Half16<T>::Pair*>(job.out + at) = dev::Half16<T>::from_float2(v0, v1);
        else
          *reinterpret_cast<float2*>(job.parts + static_cast<size_t>(sp) * tokens * job.n_rows + at) = make_float2(v0, v1);
      }
    }
    // The next unit writes acc_s only after its first chunk's barrier: no barrier needed here.
  }
  dev::cp_async_wait<0>();  // only empty groups remain; leaves the pipeline clean for the next phase
}

template <class T>
__device__ __noinline__ void attention_phase(const AttentionParams<T>& ap, unsigned char* smem) {
  // Two groups of 4 warps, each one (tile, head) at a time with its own shared memory and barrier.
  const int grp = static_cast<int>(threadIdx.x) >> 7, gtid = static_cast<int>(threadIdx.x) & 127;
  const int units = ap.tile_capacity * ap.heads;
  for (int u = static_cast<int>(blockIdx.x) * 2 + grp; u < units; u += 2 * static_cast<int>(gridDim.x))
    attn::attention_mma_tile<T, 4, true, true, 1>(
        ap, u / ap.heads, u % ap.heads, smem + grp * kAttnGroupSmem, gtid,
        [grp] { asm volatile("bar.sync %0, %1;" ::"r"(grp + 1), "n"(128) : "memory"); });
}

// x += T(sum of the split-K partials, in split order); n = LN(x) * weight; y = T(n) or h = n.
// One row per CTA (256 threads, at most two pairs each: d <= 1024), so a layer's rows run on as many
// SMs; the same arithmetic as add_ln_kernel's add_parts form (norm.cu) except the order in which the
// row's sums are reduced. Short, loop-free code: this phase runs once per layer on cold instruction
// caches.
template <class T>
__device__ __noinline__ void add_ln_phase(const AddLnParams<T> p, float* red) {
  using H = dev::Half16<T>;
  const int tid = static_cast<int>(threadIdx.x), warp = tid >> 5, lane = tid & 31;
  const size_t part = static_cast<size_t>(p.tokens) * p.d;
  auto block_sum = [&](float v, float* slot) {
    v = dev::warp_sum(v);
    if (lane == 0) slot[warp] = v;
    __syncthreads();
    float t = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) t += slot[w];
    return t;
  };
  for (int r = static_cast<int>(blockIdx.x); r < p.tokens; r += static_cast<int>(gridDim.x)) {
    float v[4];
    bool on[2];
    float* x = p.x + static_cast<size_t>(r) * p.d;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int e = 2 * tid + 512 * j;
      on[j] = e < p.d;
      float2 a = make_float2(0.f, 0.f), sum = make_float2(0.f, 0.f);
      if (on[j]) {
        a = *reinterpret_cast<const float2*>(x + e);
        sum = *reinterpret_cast<const float2*>(p.add_parts + static_cast<size_t>(r) * p.d + e);
        for (int sp = 1; sp < p.parts; ++sp) {
          const float2 f = *reinterpret_cast<const float2*>(p.add_parts + sp * part + static_cast<size_t>(r) * p.d + e);
          sum.x = __fadd_rn(sum.x, f.x);
          sum.y = __fadd_rn(sum.y, f.y);
        }
        a.x = __fadd_rn(a.x, dev::round16<T>(sum.x));
        a.y = __fadd_rn(a.y, dev::round16<T>(sum.y));
        *reinterpret_cast<float2*>(x + e) = a;
      }
      v[2 * j] = a.x;
      v[2 * j + 1] = a.y;
    }
    const float mean = block_sum(v[0] + v[1] + v[2] + v[3], red) / static_cast<float>(p.d);
    float q = 0.f;
#pragma unroll
    for (int j = 0; j < 2; ++j)
      if (on[j]) {
        const float a = v[2 * j] - mean, c = v[2 * j + 1] - mean;
        q += a * a + c * c;
      }
    const float rstd = rsqrtf(block_sum(q, red + kWarps) / static_cast<float>(p.d) + p.eps);
#pragma unroll
    for (int j = 0; j < 2; ++j)
      if (on[j]) {
        const int e = 2 * tid + 512 * j;
        const float2 w = *reinterpret_cast<const float2*>(p.weight + e);
        const float n0 = __fmul_rn(__fmul_rn(v[2 * j] - mean, rstd), w.x);
        const float n1 = __fmul_rn(__fmul_rn(v[2 * j + 1] - mean, rstd), w.y);
        if (p.y != nullptr)
          *reinterpret_cast<typename H::Pair*>(p.y + static_cast<size_t>(r) * p.d + e) = H::from_float2(n0, n1);
        else
          *reinterpret_cast<float2*>(p.norm_out + static_cast<size_t>(r) * p.d + e) = make_float2(n0, n1);
      }
    __syncthreads();  // red is reused by the next row
  }
}

// Grid-wide barrier on a counter that only grows (zeroed before each launch): every CTA adds one
// and waits for the count of this barrier. Relaxed polling and one fence after it (the release
// fence before the add publishes the CTA's writes; the acquire fence after the wait makes every
// CTA's writes visible).
__device__ __forceinline__ void grid_barrier(unsigned* count, unsigned& target) {
  __syncthreads();
  target += gridDim.x;
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(count, 1u);
    unsigned seen;
    do {
      asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(count) : "memory");
    } while (seen < target);
    __threadfence();
  }
  __syncthreads();
}

__device__ __forceinline__ void stamp(unsigned long long* trace, int layer, int phase) {
  if (trace == nullptr || threadIdx.x != 0) return;
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  trace[(static_cast<size_t>(layer) * kSmallEncoderPhases + phase) * gridDim.x + blockIdx.x] = t;
}

template <class T>
__global__ void __launch_bounds__(kThreads, 1) small_encoder_kernel(SmallEncoderParams<T> p) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ float red[2 * kWarps];
  unsigned target = 0;
  const int T_ = p.tokens, d = p.d;
  const int last = p.first_layer + p.n_layers - 1;
  const bool pw = p.w_prefetch;
  // The four GEMMs of layer li (the A operands are the workspace buffers the phases write).
  auto qkv_job = [&](int li) { return GemmJob<T>{p.y, p.layers[li].wqkv, d, 3 * d, 1, p.qkv, nullptr}; };
  auto wo_job = [&](int li) { return GemmJob<T>{p.att, p.layers[li].wo, d, d, p.attn_out_splits, nullptr, p.parts}; };
  auto wi_job = [&](int li) { return GemmJob<T>{p.y, p.layers[li].wi, d, p.inter, 1, p.g, nullptr}; };
  auto wo2_job = [&](int li) {
    return GemmJob<T>{p.g, p.layers[li].wo2, p.inter, d, p.mlp_out_splits, nullptr, p.parts};
  };
  for (int li = p.first_layer; li <= last; ++li) {
    const SmallEncoderLayer<T>& L = p.layers[li];
    // QKV: W prefetched by the previous layer's last phase (not for the launch's first layer).
    gemm_phase<T, 32, Epilogue::store16>(qkv_job(li), T_, smem, pw && li > p.first_layer);
    stamp(p.trace, li, 0);
    grid_barrier(p.barrier, target);

    AttentionParams<T> ap = p.attn;
    ap.rope_cos = L.rope_cos;
    ap.rope_sin = L.rope_sin;
    ap.window = L.window;
    attention_phase(ap, smem);
    if (pw) gemm_prefetch_w<T, 32, Epilogue::partials>(wo_job(li), T_, smem);
    stamp(p.trace, li, 1);
    grid_barrier(p.barrier, target);

    gemm_phase<T, 32, Epilogue::partials>(wo_job(li), T_, smem, pw);
    stamp(p.trace, li, 2);
    grid_barrier(p.barrier, target);

    AddLnParams<T> a;
    a.x = p.x;
    a.add_parts = p.parts;
    a.parts = p.attn_out_splits;
    a.weight = L.mlp_norm;
    a.y = p.y;
    a.tokens = T_;
    a.d = d;
    a.eps = p.eps;
    add_ln_phase(a, red);
    if (pw) gemm_prefetch_w<T, 64, Epilogue::geglu>(wi_job(li), T_, smem);
    stamp(p.trace, li, 3);
    grid_barrier(p.barrier, target);

    gemm_phase<T, 64, Epilogue::geglu>(wi_job(li), T_, smem, pw);
    if (pw) gemm_prefetch_w<T, 32, Epilogue::partials>(wo2_job(li), T_, smem);
    stamp(p.trace, li, 4);
    grid_barrier(p.barrier, target);

    gemm_phase<T, 32, Epilogue::partials>(wo2_job(li), T_, smem, pw);
    stamp(p.trace, li, 5);
    grid_barrier(p.barrier, target);

    a.parts = p.mlp_out_splits;
    a.weight = L.out_norm;
    if (li == last && p.ends_with_final_norm) {
      a.y = nullptr;
      a.norm_out = p.h;
    }
    add_ln_phase(a, red);
    if (li < last) {
      if (pw) gemm_prefetch_w<T, 32, Epilogue::store16>(qkv_job(li + 1), T_, smem);
      stamp(p.trace, li, 6);
      grid_barrier(p.barrier, target);
    } else {
      stamp(p.trace, li, 6);
    }
  }
}

struct DeviceFacts {
  bool ok = false;
  int sms = 0;
};

// Raises the kernel's shared-memory limit and checks that one CTA fits on an SM.
template <class Kernel>
bool fits_one_per_sm(Kernel* k) {
  int blocks = 0;
  if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, kThreads, kSmemBytes) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return blocks >= 1;
}

DeviceFacts probe_device() {
  DeviceFacts f;
  int dev = 0, coop = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev) != cudaSuccess || coop == 0 ||
      cudaDeviceGetAttribute(&f.sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
    cudaGetLastError();
    return f;
  }
  f.ok = fits_one_per_sm(small_encoder_kernel<__nv_bfloat16>) && fits_one_per_sm(small_encoder_kernel<__half>);
  return f;
}

const DeviceFacts& device_facts() {
  static const DeviceFacts f = probe_device();  // the engine uses one device per process
  return f;
}

}  // namespace

int32_t small_encoder_grid() { return device_facts().ok ? device_facts().sms : 0; }

bool small_encoder_supported(int32_t d, int32_t inter, int32_t layers) {
  return d % 64 == 0 && d >= 64 && d <= 1024 && inter % 64 == 0 && inter > 0 && layers >= 1 &&
         layers <= kSmallEncoderMaxLayers && device_facts().ok;
}

template <class T>
void launch_small_encoder(const SmallEncoderParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.tokens >= 1 && p.tokens <= kSmallEncoderMaxTokens && p.n_layers >= 1 && p.first_layer >= 0 &&
                   p.first_layer + p.n_layers <= kSmallEncoderMaxLayers && p.attn_out_splits >= 1 &&
                   p.attn_out_splits <= kSmallEncoderMaxSplits && p.mlp_out_splits >= 1 &&
                   p.mlp_out_splits <= kSmallEncoderMaxSplits && p.attn.query_tile == 64 && p.attn.key_split == 1 &&
                   p.barrier && p.x && p.y && p.qkv && p.att && p.g && p.parts && (!p.ends_with_final_norm || p.h),
               ErrorKind::internal, "small encoder: bad parameters (tokens {}, layers {}+{})", p.tokens, p.first_layer,
               p.n_layers);
  LAYA_REQUIRE(small_encoder_supported(p.d, p.inter, p.first_layer + p.n_layers), ErrorKind::internal,
               "small encoder: not supported here (d {}, inter {})", p.d, p.inter);
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(device_facts().sms));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = kSmemBytes;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  LAYA_CUDA_CHECK(cudaMemsetAsync(p.barrier, 0, sizeof(unsigned), stream));
  LAYA_CUDA_CHECK(cudaLaunchKernelEx(&cfg, small_encoder_kernel<T>, p));
}

#define LAYA_INSTANTIATE_SMALL_ENCODER(T) \
  template void launch_small_encoder<T>(const SmallEncoderParams<T>&, cudaStream_t);
LAYA_FOR_HALF16(LAYA_INSTANTIATE_SMALL_ENCODER)

}  // namespace laya::cuda
