#include "backends/cuda/activation.cuh"

#include <type_traits>

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"
#include "backends/cuda/gelu_lut.cuh"
#include "backends/cuda/half16.cuh"

namespace laya::cuda {

namespace {

// 8 columns per thread (16-byte loads and stores); inter is a multiple of 8. One grid row per
// token (blockIdx.y), so no thread divides to find its row. kLut (bf16): T(gelu(a)) from the table
// where it holds a — all eight lookups issued before any is used, the computed form a branch taken
// rarely (|a| outside [2^-16, 16)), as in the fused GeGLU GEMM's epilogue.
// The threads past the last column send `ahead` to L2 and leave, before the PDL wait (constants).
template <class T, bool kLut>
__global__ void geglu_kernel(GegluParams<T> p, const __grid_constant__ L2Prefetch ahead) {
  using H = dev::Half16<T>;
  const int chunk = static_cast<int>(blockIdx.x) * blockDim.x + static_cast<int>(threadIdx.x);
  const int chunks = p.inter / 8;
  if (chunk >= chunks) {
    const int idle = static_cast<int>(gridDim.x * blockDim.x) - chunks;  // a row's
    dev::prefetch_plan(ahead, static_cast<int>(blockIdx.y) * idle + chunk - chunks, static_cast<int>(gridDim.y) * idle);
    return;
  }
  dev::pdl_prologue();
  const int c = chunk * 8;
  const int64_t r = blockIdx.y;
  const T* row = p.up + r * 2 * p.inter;
  uint4 av = *reinterpret_cast<const uint4*>(row + c);
  const uint4 gv = *reinterpret_cast<const uint4*>(row + p.inter + c);
  T* a = reinterpret_cast<T*>(&av);
  const T* g = reinterpret_cast<const T*>(&gv);
  float ga[8];
  if constexpr (kLut) {
    bool in[8], all = true;
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const uint32_t slot = dev::gelu_lut_slot(__bfloat16_as_ushort(a[e]), in[e]);
      ga[e] = __uint_as_float(uint32_t{__ldg(p.gelu_lut + slot)} << 16);
      all = all && in[e];
    }
    if (!all) {
#pragma unroll
      for (int e = 0; e < 8; ++e)
        if (!in[e]) ga[e] = dev::gelu16<T>(H::to_float(a[e]));
    }
  } else {
#pragma unroll
    for (int e = 0; e < 8; ++e) ga[e] = dev::gelu16<T>(H::to_float(a[e]));
  }
#pragma unroll
  for (int e = 0; e < 8; ++e) a[e] = H::from_float(__fmul_rn(ga[e], H::to_float(g[e])));
  *reinterpret_cast<uint4*>(p.out + r * p.inter + c) = av;
}

__global__ void fill_gelu_lut_kernel(uint16_t* lut) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < kGeluLutEntries) lut[i] = dev::gelu_lut_entry(i);
}

// gelu16 (half16.cuh) of each bf16 pattern, as geglu_kernel's computed form evaluates it.
__global__ void fill_gelu_all_kernel(uint16_t* table) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < kGeluAllEntries)
    table[i] = __bfloat16_as_ushort(
        __float2bfloat16_rn(dev::gelu16<__nv_bfloat16>(__uint_as_float(static_cast<uint32_t>(i) << 16))));
}

template <class T>
__global__ void gelu_kernel(GeluParams<T> p) {
  using H = dev::Half16<T>;
  dev::pdl_prologue();
  const int64_t idx = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= p.n) return;
  p.data[idx] = H::from_float(dev::gelu_erf(H::to_float(p.data[idx])));
}

}  // namespace

template <class T>
void launch_geglu(const GegluParams<T>& p, cudaStream_t stream, const L2Prefetch& ahead) {
  LAYA_REQUIRE(p.up && p.out && p.rows >= 0 && p.inter > 0 && p.inter % 8 == 0, ErrorKind::internal,
               "geglu: bad parameters (inter {} must be a multiple of 8)", p.inter);
  LAYA_REQUIRE(p.rows <= 65535, ErrorKind::internal, "geglu: {} rows exceed the grid's y limit", p.rows);
  LAYA_REQUIRE(p.gelu_lut == nullptr || (std::is_same_v<T, __nv_bfloat16>), ErrorKind::internal,
               "geglu: the GELU table holds bf16 values only");
  LAYA_REQUIRE(l2_prefetch_valid(ahead), ErrorKind::internal, "geglu: bad L2 prefetch plan");
  if (p.rows == 0) return;
  constexpr int kThreads = 128;
  const int chunks = p.inter / 8;
  const dim3 grid(static_cast<unsigned>((chunks + kThreads - 1) / kThreads), static_cast<unsigned>(p.rows));
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    if (p.gelu_lut != nullptr) {
      launch_kernel(geglu_kernel<T, true>, grid, dim3(kThreads), stream, true, p, ahead);
      LAYA_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  launch_kernel(geglu_kernel<T, false>, grid, dim3(kThreads), stream, true, p, ahead);
  LAYA_CUDA_CHECK_LAUNCH();
}

void launch_fill_gelu_lut(uint16_t* lut, cudaStream_t stream) {
  LAYA_REQUIRE(lut != nullptr, ErrorKind::internal, "fill_gelu_lut: no table");
  constexpr int kThreads = 256;
  launch_kernel(fill_gelu_lut_kernel, dim3((kGeluLutEntries + kThreads - 1) / kThreads), dim3(kThreads), stream, false,
                lut);
  LAYA_CUDA_CHECK_LAUNCH();
}

void launch_fill_gelu_all(uint16_t* table, cudaStream_t stream) {
  LAYA_REQUIRE(table != nullptr, ErrorKind::internal, "fill_gelu_all: no table");
  constexpr int kThreads = 256;
  launch_kernel(fill_gelu_all_kernel, dim3(kGeluAllEntries / kThreads), dim3(kThreads), stream, false, table);
  LAYA_CUDA_CHECK_LAUNCH();
}

template <class T>
void launch_gelu(const GeluParams<T>& p, cudaStream_t stream) {
  LAYA_REQUIRE(p.data && p.n >= 0, ErrorKind::internal, "gelu: bad parameters");
  if (p.n == 0) return;
  launch_kernel(gelu_kernel<T>, static_cast<unsigned>((p.n + 255) / 256), 256, stream, true, p);
  LAYA_CUDA_CHECK_LAUNCH();
}

#define LAYA_INSTANTIATE_ACTIVATION(T)                                  \
  template void launch_geglu<T>(const GegluParams<T>&, cudaStream_t, const L2Prefetch&); \
  template void launch_gelu<T>(const GeluParams<T>&, cudaStream_t);
LAYA_FOR_HALF16(LAYA_INSTANTIATE_ACTIVATION)

}  // namespace laya::cuda
