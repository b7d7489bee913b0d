#include "backends/cuda/small_gemm.cuh"

#include <type_traits>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/half16.cuh"
#include "backends/cuda/tma.cuh"
#include "backends/cuda/wgmma.cuh"

namespace laya::cuda {

namespace {

constexpr int kBM = 64;      // rows of an A box (the bucket's m <= 64 rows, the rest zeros)
constexpr int kBN = 32;      // W rows per CTA
constexpr int kBK = 64;      // K per stage: one 128-byte swizzle row
constexpr int kStages = 8;   // the ring: the first kStages weight boxes are requested before the PDL wait
constexpr int kABytes = kBM * kBK * 2;   // 8 KB
constexpr int kWBytes = kBN * kBK * 2;   // 4 KB
constexpr int kStageBytes = kABytes + kWBytes;  // 12 KB: both boxes stay 1024-byte aligned
constexpr int kSmemBytes = kStages * kStageBytes + 2 * kStages * 8 + 1024;  // + barriers, alignment slack
constexpr int kThreads = 256;  // warpgroup 0 consumes, one thread of warpgroup 1 produces

#ifdef LAYA_HAS_WGMMA
using dev::mbar_arrive;
using dev::mbar_expect_tx;
using dev::mbar_init;
using dev::mbar_wait;
using dev::sw128_desc;
using dev::tma_load;

// d[16] += A[64 x 16] . B[32 x 16]^T (m64n32k16, both K-major by descriptor; fp32 accumulators).
template <class T>
__device__ __forceinline__ void wgmma_m64n32k16(float (&d)[16], uint64_t da, uint64_t db) {
#define LAYA_WGMMA_M64N32K16(PTX_TYPE)                                                                      \
  asm volatile("wgmma.mma_async.sync.aligned.m64n32k16.f32." PTX_TYPE "." PTX_TYPE " "                      \
               "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, 1, 1, 1, 0, 0;\n"        \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
                 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),        \
                 "+f"(d[15])                                                                               \
               : "l"(da), "l"(db))
  if constexpr (std::is_same_v<T, __half>)
    LAYA_WGMMA_M64N32K16("f16");
  else
    LAYA_WGMMA_M64N32K16("bf16");
#undef LAYA_WGMMA_M64N32K16
}
#endif

// blockIdx.x: the CTA's 32 W rows (geglu: 16 outputs); blockIdx.y: its K range (partials).
template <class T, SmallGemmForm kForm>
__global__ void __launch_bounds__(kThreads, 1)
    small_gemm_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap w_map, void* out,
                      const T* bias, int relu, int m, int n, int k_tiles, int splits) {
#ifdef LAYA_HAS_WGMMA
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kStages * kStageBytes);
  uint64_t* empty = full + kStages;
  // This CTA's k-tiles: range blockIdx.y of `splits` near-equal ranges.
  const int split = static_cast<int>(blockIdx.y);
  const int kt0 = split * k_tiles / splits, kt1 = (split + 1) * k_tiles / splits, tiles = kt1 - kt0;
  const int col0 = static_cast<int>(blockIdx.x) * (kForm == SmallGemmForm::geglu ? kBN / 2 : kBN);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);   // the producer's expect_tx arrival; the bytes complete it
      mbar_init(&empty[s], 4);  // one arrival per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x >= 128) {  // the producer warpgroup: one thread issues the loads
    if (threadIdx.x == 128) {
      auto load_w = [&](int i, int s) {
        unsigned char* dst = smem + s * kStageBytes + kABytes;
        const int kc = (kt0 + i) * kBK;
        if constexpr (kForm == SmallGemmForm::geglu) {  // 16 act rows, then their 16 mul rows
          tma_load(dst, &w_map, &full[s], kc, col0);
          tma_load(dst + kWBytes / 2, &w_map, &full[s], kc, n + col0);
        } else {
          tma_load(dst, &w_map, &full[s], kc, col0);
        }
      };
      const int first = tiles < kStages ? tiles : kStages;
      for (int i = 0; i < first; ++i) {  // the weights do not depend on the previous kernel
        mbar_expect_tx(&full[i], kStageBytes);
        load_w(i, i);
      }
      dev::pdl_prologue();  // the activations do
      for (int i = 0; i < first; ++i) tma_load(smem + i * kStageBytes, &a_map, &full[i], (kt0 + i) * kBK, 0);
      for (int i = first; i < tiles; ++i) {
        const int s = i % kStages;
        mbar_wait(&empty[s], ((i / kStages) - 1) & 1);
        mbar_expect_tx(&full[s], kStageBytes);
        load_w(i, s);
        tma_load(smem + s * kStageBytes, &a_map, &full[s], (kt0 + i) * kBK, 0);
      }
    }
    return;
  }
  // The consumers write `out`, which the previous kernel may still read.
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  float d[16];
#pragma unroll
  for (int j = 0; j < 16; ++j) d[j] = 0.f;
  const int warp = static_cast<int>(threadIdx.x) >> 5, lane = static_cast<int>(threadIdx.x) & 31;
  for (int i = 0; i < tiles; ++i) {
    const int s = i % kStages;
    mbar_wait(&full[s], (i / kStages) & 1);
    const unsigned char* a = smem + s * kStageBytes;
    dev::wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < kBK / 16; ++kk) wgmma_m64n32k16<T>(d, sw128_desc(a + kk * 32), sw128_desc(a + kABytes + kk * 32));
    dev::wgmma_commit();
    dev::wgmma_wait<1>();  // the previous k-tile's MMAs are done: its stage goes back to the producer
    if (i > 0 && lane == 0) mbar_arrive(&empty[(i - 1) % kStages]);
  }
  dev::wgmma_wait<0>();
#pragma unroll
  for (int j = 0; j < 16; ++j) dev::fence_reg(d[j]);
  // Register 4c + 2h + e: row 16 warp + lane / 4 + 8h, column 8c + 2 (lane % 4) + e of the tile.
  const int row = warp * 16 + (lane >> 2), col = 2 * (lane & 3);
  float b[8] = {};  // plain form: the bias of this thread's 8 columns
  if constexpr (kForm == SmallGemmForm::plain) {
    if (bias != nullptr) {
#pragma unroll
      for (int c = 0; c < 4; ++c)
#pragma unroll
        for (int e = 0; e < 2; ++e) b[2 * c + e] = static_cast<float>(bias[col0 + 8 * c + col + e]);
    }
  }
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
          if (bias != nullptr) v[e] = __fadd_rn(v[e], b[2 * c + e]);
          if (relu) v[e] = fmaxf(v[e], 0.f);
        }
        *reinterpret_cast<uint32_t*>(static_cast<T*>(out) + static_cast<size_t>(r) * n + col0 + 8 * c + col) =
            dev::pack16<T>(v[0], v[1]);
      }
    }
  }
#endif
}

template <class T, SmallGemmForm kForm>
void configure() {
  static const bool done = [] {
    LAYA_CUDA_CHECK(
        cudaFuncSetAttribute(small_gemm_kernel<T, kForm>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    return true;
  }();
  (void)done;
}

template <class T, SmallGemmForm kForm>
void launch_form(const SmallGemmArgs<T>& a, cudaStream_t stream) {
  configure<T, kForm>();
  const int w_rows = kForm == SmallGemmForm::geglu ? 2 * a.n : a.n;
  const int box_rows = kForm == SmallGemmForm::geglu ? kBN / 2 : kBN;
  const CUtensorMap a_map = tma_tensor_map(a.in, a.m, a.k, kBM);
  const CUtensorMap w_map = tma_tensor_map(a.w, w_rows, a.k, static_cast<uint32_t>(box_rows));
  const dim3 grid(static_cast<unsigned>(a.n / box_rows), static_cast<unsigned>(a.splits));
  launch_kernel_smem(small_gemm_kernel<T, kForm>, grid, dim3(kThreads), kSmemBytes, stream, true, a_map, w_map, a.out,
                     a.bias, static_cast<int>(a.relu), a.m, a.n, a.k / kBK, a.splits);
}

}  // namespace

bool small_gemm_supported(int32_t m, int32_t n, int32_t k, SmallGemmForm form, int32_t splits) {
  static const bool device_ok =
      sm90a_kernel_runs(small_gemm_kernel<__nv_bfloat16, SmallGemmForm::plain>) && tma_encode_available();
  const int32_t n_step = form == SmallGemmForm::geglu ? kBN / 2 : kBN;
  return device_ok && m >= 0 && m <= kBM && n > 0 && n % n_step == 0 && k > 0 && k % kBK == 0 && splits >= 1 &&
         splits <= k / kBK && (splits == 1 || form == SmallGemmForm::partials);
}

template <class T>
void launch_small_gemm(const SmallGemmArgs<T>& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.in && a.w && a.out && small_gemm_supported(a.m, a.n, a.k, a.form, a.splits), ErrorKind::internal,
               "small_gemm: unsupported call (m {}, n {}, k {}, splits {})", a.m, a.n, a.k, a.splits);
  LAYA_REQUIRE((reinterpret_cast<uintptr_t>(a.in) | reinterpret_cast<uintptr_t>(a.w)) % 16 == 0, ErrorKind::internal,
               "small_gemm: operands must be 16-byte aligned");
  LAYA_REQUIRE((a.bias == nullptr && !a.relu) || (a.form == SmallGemmForm::plain && a.bias != nullptr),
               ErrorKind::internal, "small_gemm: a bias (and ReLU, which needs one) in the plain form only");
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
  }
  LAYA_CUDA_CHECK_LAUNCH();
}

template void launch_small_gemm<__nv_bfloat16>(const SmallGemmArgs<__nv_bfloat16>&, cudaStream_t);
template void launch_small_gemm<__half>(const SmallGemmArgs<__half>&, cudaStream_t);

}  // namespace laya::cuda
