#include "backends/cuda/skinny_gemm.cuh"

#include <cooperative_groups.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <tuple>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/mma.cuh"
#include "backends/cuda/skinny_plan.h"

namespace laya::cuda {

namespace skinny {  // named (not internal): the sm_80 pass, which compiles no kernel body, uses none of it
// Byte offset of 16-byte chunk c (8 bf16) of row r in a [64][64] bf16 tile of 128-byte rows. The
// XOR swizzle puts the 8 rows an ldmatrix reads (and the chunks cp.async writes) in distinct banks.
__device__ __forceinline__ int swz(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }
}  // namespace skinny

namespace {

namespace cg = cooperative_groups;

constexpr int kT = kSkinnyTile;                    // 64 rows, 64 columns, 64 K per stage
constexpr int kStages = 4;                         // cp.async pipeline depth
constexpr int kThreads = 128;                      // 4 warps, 16 output columns each
constexpr int kTileBytes = kT * kT * 2;            // one bf16 [64][64] tile
constexpr int kStageBytes = 2 * kTileBytes;        // the A tile and the W tile of a stage
constexpr int kSmemBytes = kStages * kStageBytes;  // 64 KB: three CTAs fit on an SM
constexpr int kCtasPerSm = 3;
constexpr int kAccStride = kT + 4;                 // fp32 partial tile row (floats), reuses the pipeline memory
static_assert(kT * kAccStride * 4 <= kSmemBytes, "partial tile must fit in the pipeline buffers");


#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // used by the sm_90 kernel body only
// The loads of one 64-wide K chunk, issued by every thread: MF*16 rows of `in` (load_a) and the
// tile's 64 weight rows (load_w). Rows past M or N and columns past K are zero-filled (K and N are
// multiples of 8).
template <int MF>
__device__ __forceinline__ void load_a(unsigned char* stage, const SkinnyGemmParams& p, int m0, int chunk) {
  const int k0 = chunk * kT;
#pragma unroll
  for (int i = static_cast<int>(threadIdx.x); i < MF * 16 * 8; i += kThreads) {
    const int r = i >> 3, c = i & 7;
    const int gm = m0 + r, gk = k0 + c * 8;
    const bool valid = gm < p.m && gk < p.k;
    const __nv_bfloat16* src = valid ? p.in + static_cast<size_t>(gm) * p.k + gk : p.in;
    dev::cp_async16(stage + skinny::swz(r, c), src, valid);
  }
}

__device__ __forceinline__ void load_w(unsigned char* stage, const SkinnyGemmParams& p, int n0, int chunk) {
  const int k0 = chunk * kT;
#pragma unroll
  for (int i = static_cast<int>(threadIdx.x); i < kT * 8; i += kThreads) {
    const int r = i >> 3, c = i & 7;
    const int gk = k0 + c * 8;
    int wrow;
    bool valid;
    if (p.geglu) {  // rows 0..31: input columns n0..n0+31; rows 32..63: the same gate columns
      const int j = n0 + (r & 31);
      valid = j < p.n;
      wrow = (r >> 5) * p.n + j;
    } else {
      wrow = n0 + r;
      valid = wrow < p.n;
    }
    valid = valid && gk < p.k;
    const __nv_bfloat16* src = valid ? p.w + static_cast<size_t>(wrow) * p.k + gk : p.w;
    dev::cp_async16(stage + kTileBytes + skinny::swz(r, c), src, valid);
  }
}
#endif

template <int MF>
__global__ void __launch_bounds__(kThreads) skinny_gemm_kernel(SkinnyGemmParams p, int k_chunks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const int splits = static_cast<int>(cluster.num_blocks());
  const int rank = static_cast<int>(cluster.block_rank());  // = blockIdx.y: the K split
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  const int m0 = static_cast<int>(blockIdx.z) * kT;
  const int n0 = static_cast<int>(blockIdx.x) * (p.geglu ? kT / 2 : kT);
  const int c_begin = rank * k_chunks / splits, c_end = (rank + 1) * k_chunks / splits;
  const int n_chunks = c_end - c_begin;

  float acc[MF][2][4];
#pragma unroll
  for (int f = 0; f < MF; ++f)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[f][h][e] = 0.f;

  // The weights do not depend on the previous kernel: under Programmatic Dependent Launch their
  // first stages are requested while that kernel is still finishing, and only the activations wait
  // for it (without PDL the wait returns at once). Commit group s then holds A of chunk s (and
  // group 0 every early W load), so waiting for group i still covers chunk i.
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s)
    if (s < n_chunks) load_w(smem + s * kStageBytes, p, n0, c_begin + s);
  dev::pdl_prologue();
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < n_chunks) load_a<MF>(smem + s * kStageBytes, p, m0, c_begin + s);
    dev::cp_async_commit();
  }
  for (int i = 0; i < n_chunks; ++i) {
    dev::cp_async_wait<kStages - 2>();
    __syncthreads();  // chunk i landed for every thread; chunk i-1's buffer is free to refill
    const int next = i + kStages - 1;
    if (next < n_chunks) {
      load_a<MF>(smem + (next % kStages) * kStageBytes, p, m0, c_begin + next);
      load_w(smem + (next % kStages) * kStageBytes, p, n0, c_begin + next);
    }
    dev::cp_async_commit();
    const unsigned char* a_tile = smem + (i % kStages) * kStageBytes;
    const unsigned char* w_tile = a_tile + kTileBytes;
#pragma unroll
    for (int ks = 0; ks < kT / 16; ++ks) {
      uint32_t b[4];  // n 0-7 / k 0-7, n 0-7 / k 8-15, n 8-15 / k 0-7, n 8-15 / k 8-15 of this warp's 16 columns
      const int w_row = warp * 16 + (lane & 7) + ((lane >> 4) << 3);
      dev::ldmatrix_x4(b, w_tile + skinny::swz(w_row, ks * 2 + ((lane >> 3) & 1)));
#pragma unroll
      for (int f = 0; f < MF; ++f) {
        uint32_t a[4];
        dev::ldmatrix_x4(a, a_tile + skinny::swz(f * 16 + (lane & 15), ks * 2 + (lane >> 4)));
        dev::mma_bf16(acc[f][0], a, b[0], b[1]);
        dev::mma_bf16(acc[f][1], a, b[2], b[3]);
      }
    }
  }
  dev::cp_async_wait<0>();
  __syncthreads();  // every warp is done with the pipeline buffers

  // This split's partial tile, fp32, in shared memory (rows MF*16, 64 columns).
  float* part = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int f = 0; f < MF; ++f)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = f * 16 + (lane >> 2), c = warp * 16 + h * 8 + 2 * (lane & 3);
      *reinterpret_cast<float2*>(&part[r * kAccStride + c]) = make_float2(acc[f][h][0], acc[f][h][1]);
      *reinterpret_cast<float2*>(&part[(r + 8) * kAccStride + c]) = make_float2(acc[f][h][2], acc[f][h][3]);
    }
  cluster.sync();  // every split's partial is visible to the whole cluster

  // Each CTA of the cluster finishes an equal share of the tile's valid rows: the sum over splits
  // in split order (the same bits whichever CTA adds), then the epilogue.
  const int rows = min(MF * 16, p.m - m0);
  const int per = (rows + splits - 1) / splits;
  const int r_begin = rank * per, r_end = min(rows, r_begin + per);
  const int pairs = p.geglu ? kT / 4 : kT / 2;  // column pairs per row written by this tile
  for (int u = static_cast<int>(threadIdx.x); u < (r_end - r_begin) * pairs; u += kThreads) {
    const int r = r_begin + u / pairs, c = 2 * (u % pairs);
    const int col = n0 + c;
    if (col >= p.n) continue;
    // All partials are requested before the first add (distributed shared memory latency is paid
    // once, not once per split); the adds then run in split order.
    float2 pv[kSkinnyMaxSplits], pg[kSkinnyMaxSplits];
#pragma unroll
    for (int s = 0; s < kSkinnyMaxSplits; ++s)
      if (s < splits) {
        const float* remote = cluster.map_shared_rank(part, s);
        pv[s] = *reinterpret_cast<const float2*>(&remote[r * kAccStride + c]);
        if (p.geglu) pg[s] = *reinterpret_cast<const float2*>(&remote[r * kAccStride + kT / 2 + c]);
      }
    float2 v = make_float2(0.f, 0.f), g = make_float2(0.f, 0.f);
#pragma unroll
    for (int s = 0; s < kSkinnyMaxSplits; ++s)
      if (s < splits) {
        v.x += pv[s].x;
        v.y += pv[s].y;
        if (p.geglu) {
          g.x += pg[s].x;
          g.y += pg[s].y;
        }
      }
    __nv_bfloat162 o;
    if (p.geglu) {  // geglu_kernel's roundings: the GEMM output, GELU, the product
      const float a0 = dev::bf16_round(dev::gelu_erf(dev::bf16_round(v.x)));
      const float a1 = dev::bf16_round(dev::gelu_erf(dev::bf16_round(v.y)));
      o = __floats2bfloat162_rn(__fmul_rn(a0, dev::bf16_round(g.x)), __fmul_rn(a1, dev::bf16_round(g.y)));
    } else {
      if (p.bias != nullptr) {
        const float2 bb = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p.bias + col));
        v.x = __fadd_rn(v.x, bb.x);
        v.y = __fadd_rn(v.y, bb.y);
      }
      if (p.relu) {
        v.x = fmaxf(v.x, 0.f);
        v.y = fmaxf(v.y, 0.f);
      }
      o = __floats2bfloat162_rn(v.x, v.y);
    }
    *reinterpret_cast<__nv_bfloat162*>(p.out + static_cast<size_t>(m0 + r) * p.n + col) = o;
  }
  cluster.sync();  // no CTA leaves while another still reads its shared memory
#else
  __trap();  // launched only where skinny_gemm_available() (sm_90)
#endif
}

// The launch configuration of the kernel: CTAs of kThreads threads and kSmemBytes of shared
// memory, clusters of `cluster_y` CTAs along y, optionally Programmatic Dependent Launch. Not
// copyable: cfg.attrs points into the object.
struct ClusterLaunch {
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[2]{};
  ClusterLaunch(dim3 grid, int cluster_y, cudaStream_t stream, bool pdl) {
    cfg.gridDim = grid;
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = kSmemBytes;
    cfg.stream = stream;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 1;
    attr[0].val.clusterDim.y = static_cast<unsigned>(cluster_y);
    attr[0].val.clusterDim.z = 1;
    attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[1].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 2 : 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

template <int MF>
void launch_mf(const SkinnyGemmParams& p, const SkinnyPlan& plan, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(plan.n_tiles), static_cast<unsigned>(plan.splits),
                  static_cast<unsigned>(plan.m_tiles));
  // PDL only on the engine's own stream (as launch_kernel does).
  ClusterLaunch launch(grid, plan.splits, stream, stream != nullptr && pdl_for_next_launch());
  pdl_last_launch_own() = stream != nullptr;
  LAYA_CUDA_CHECK(cudaLaunchKernelEx(&launch.cfg, skinny_gemm_kernel<MF>, p, plan.k_chunks));
}

// Measured once by prepare_kernels(): resident clusters of each size (index = cluster size) and
// the device's SM count.
int32_t g_max_clusters[kSkinnyMaxSplits + 1] = {};
int g_sms = 0;

bool prepare_kernels() {
  int device = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&prop, device) != cudaSuccess ||
      prop.major < 9) {
    cudaGetLastError();
    return false;
  }
  g_sms = prop.multiProcessorCount;
  bool ok = true;
  // The whole unified L1 as shared memory, so kCtasPerSm CTAs are resident on every SM (the plan
  // sizes the grid for one wave of them).
  for (auto* k : {skinny_gemm_kernel<1>, skinny_gemm_kernel<2>, skinny_gemm_kernel<3>, skinny_gemm_kernel<4>}) {
    ok = ok && cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes) == cudaSuccess;
    ok = ok && cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxShared) == cudaSuccess;
  }
  // How many clusters of each size can be resident at once (a plan keeps its clusters within one
  // wave); the largest must be schedulable at all (a GPU partition could forbid it).
  for (int size = 1; size <= kSkinnyMaxSplits && ok; ++size) {
    ClusterLaunch launch(dim3(1, static_cast<unsigned>(size), 1), size, nullptr, false);
    int clusters = 0;
    ok = cudaOccupancyMaxActiveClusters(&clusters, skinny_gemm_kernel<4>, &launch.cfg) == cudaSuccess && clusters > 0;
    g_max_clusters[size] = clusters;
  }
  cudaGetLastError();
  return ok;
}

bool log_enabled() {
  static const bool on = std::getenv("LAYA_CUDA_SKINNY_LOG") != nullptr;
  return on;
}

// LAYA_CUDA_SKINNY_LOG=1: each new shape's plan and how many of its clusters fit on the GPU at once.
void log_plan(const SkinnyGemmParams& p, const SkinnyPlan& plan, int sms) {
  static std::mutex mu;
  static std::set<std::tuple<int, int, int, bool>> seen;
  const std::lock_guard<std::mutex> lock(mu);
  if (!seen.insert({p.m, p.n, p.k, p.geglu}).second) return;
  std::fprintf(stderr,
               "skinny plan M=%d N=%d K=%d geglu=%d: grid %dx%dx%d (%d CTAs, %d SMs), %d K chunks, %d fragments; "
               "%d clusters resident at most\n",
               p.m, p.n, p.k, p.geglu ? 1 : 0, plan.n_tiles, plan.splits, plan.m_tiles,
               plan.n_tiles * plan.splits * plan.m_tiles, sms, plan.k_chunks, plan.m_frags,
               g_max_clusters[plan.splits]);
}

}  // namespace

bool skinny_gemm_available() {
  static const bool ok = prepare_kernels();
  return ok;
}

void launch_skinny_gemm(const SkinnyGemmParams& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.in && p.w && p.out && p.m >= 0 && p.n > 0 && p.k > 0 && p.n % 8 == 0 && p.k % 8 == 0 &&
                   (!p.geglu || (p.bias == nullptr && !p.relu)),
               ErrorKind::internal, "skinny gemm: bad parameters (M={} N={} K={})", p.m, p.n, p.k);
  LAYA_REQUIRE(skinny_gemm_available(), ErrorKind::internal, "skinny gemm: not available on this GPU");
  if (p.m == 0) return;
  const SkinnyPlan plan = plan_skinny(p.m, p.n, p.k, p.geglu, kCtasPerSm * g_sms, g_max_clusters);
  if (log_enabled()) log_plan(p, plan, g_sms);
  switch (plan.m_frags) {
    case 1: launch_mf<1>(p, plan, stream); break;
    case 2: launch_mf<2>(p, plan, stream); break;
    case 3: launch_mf<3>(p, plan, stream); break;
    default: launch_mf<4>(p, plan, stream); break;
  }
}

}  // namespace laya::cuda
