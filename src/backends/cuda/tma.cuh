// Hopper TMA (cp.async.bulk.tensor) and mbarrier building blocks, shared by the fused GeGLU GEMM and
// the small-M GEMM: host-side tensor maps of 16-bit matrices, and the device-side helpers (defined
// only where wgmma.cuh finds sm_90a: LAYA_HAS_WGMMA).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "backends/cuda/check.h"
#include "backends/cuda/wgmma.cuh"

namespace laya::cuda {

using TmaEncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                    const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's cuTensorMapEncodeTiled (through the runtime, so the binary needs no libcuda link);
// null where the driver lacks it.
inline TmaEncodeTiled tma_encode_tiled() {
  static const TmaEncodeTiled fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      cudaGetLastError();
      return static_cast<TmaEncodeTiled>(nullptr);
    }
    return reinterpret_cast<TmaEncodeTiled>(p);
  }();
  return fn;
}
inline bool tma_encode_available() { return tma_encode_tiled() != nullptr; }

// A [rows, k] row-major 16-bit matrix as TMA boxes of box_rows x 64 elements (one 128-byte swizzle
// row), 128-byte swizzle; rows past the end read as zeros.
template <class T>
CUtensorMap tma_tensor_map(const T* base, int32_t rows, int32_t k, uint32_t box_rows) {
  const TmaEncodeTiled encode = tma_encode_tiled();
  LAYA_REQUIRE(encode != nullptr, ErrorKind::internal, "tma: cuTensorMapEncodeTiled is not available");
  CUtensorMap map{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k) * 2};
  const cuuint32_t box[2] = {64, box_rows};
  const cuuint32_t elem[2] = {1, 1};
  const CUtensorMapDataType type =
      std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const CUresult r = encode(&map, type, 2, const_cast<T*>(base), dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  LAYA_REQUIRE(r == CUDA_SUCCESS, ErrorKind::internal, "tma: cuTensorMapEncodeTiled failed ({})", static_cast<int>(r));
  return map;
}

// Boxes of 64 rows x 64 elements of a [rows, k] matrix that pair row r with row r + pair_rows: box
// rows 16 b + i are rows 8 (c + b) + i and box rows 16 b + 8 + i are rows 8 (c + b) + i + pair_rows
// (b < 4, i < 8; coordinates: k element, 0, 0, c = the first row / 8; `blocks` = the c range) — so
// the thread of a wgmma that holds accumulator row j also holds row j + 8. 128-byte swizzle (the
// box lands as one 64-row tile). Used for the GeGLU input weights Wi [2 n, k] (act rows 0..n-1 and
// their mul rows n..2n-1: pair_rows = n, blocks = n / 8) and for the RoPE halves of a head's 64 QKV
// rows (dims j and j + 32: pair_rows = 32, blocks = rows / 8, c a multiple of 8).
template <class T>
CUtensorMap tma_tensor_map_row_pairs(const T* base, int32_t blocks, int32_t k, int32_t pair_rows) {
  const TmaEncodeTiled encode = tma_encode_tiled();
  LAYA_REQUIRE(encode != nullptr, ErrorKind::internal, "tma: cuTensorMapEncodeTiled is not available");
  LAYA_REQUIRE(blocks > 0 && pair_rows > 0, ErrorKind::internal, "tma: row pairs need blocks and a distance");
  CUtensorMap map{};
  const cuuint64_t row = static_cast<cuuint64_t>(k) * 2;  // bytes
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(k), 8, 2, static_cast<cuuint64_t>(blocks)};
  const cuuint64_t strides[3] = {row, row * static_cast<cuuint64_t>(pair_rows), row * 8};
  const cuuint32_t box[4] = {64, 8, 2, 4};
  const cuuint32_t elem[4] = {1, 1, 1, 1};
  const CUtensorMapDataType type =
      std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const CUresult r = encode(&map, type, 4, const_cast<T*>(base), dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  LAYA_REQUIRE(r == CUDA_SUCCESS, ErrorKind::internal, "tma: cuTensorMapEncodeTiled (row pairs) failed ({})",
               static_cast<int>(r));
  return map;
}

// The GeGLU input weights: act row j paired with its mul row n + j (see tma_tensor_map_row_pairs).
template <class T>
CUtensorMap tma_tensor_map_act_mul(const T* base, int32_t n, int32_t k) {
  LAYA_REQUIRE(n % 8 == 0, ErrorKind::internal, "tma: act/mul pairs need n % 8 == 0 (n {})", n);
  return tma_tensor_map_row_pairs(base, n / 8, k, n);
}

}  // namespace laya::cuda

#ifdef LAYA_HAS_WGMMA
namespace laya::cuda::dev {

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_u32(bar)), "r"(parity)
        : "memory");
  } while (done == 0);
}
// One box of the tensor map (coordinates: k element, row) into shared memory, completing on bar.
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int k, int row) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
          smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(k), "r"(row)
      : "memory");
}

// An L2 cache policy for tma_load / tma_load_4d's `policy`: lines loaded under it are the first the
// L2 evicts. For operands each CTA reads once and no one reads again this layer (the small GEMM's
// weights), so the lines read again — activations, constants, code — stay.
__device__ __forceinline__ uint64_t l2_evict_first_policy() {
  uint64_t p;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(p));
  return p;
}
// tma_load with an L2 cache policy (l2_evict_first_policy).
__device__ __forceinline__ void tma_load(void* dst, const CUtensorMap* map, uint64_t* bar, int k, int row,
                                         uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%3, "
      "%4}], [%2], %5;\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(k), "r"(row), "l"(policy)
      : "memory");
}

// One box of a 4-dimensional tensor map (tma_tensor_map_act_mul: k element, 0, 0, row block), with
// an L2 cache policy (l2_evict_first_policy).
__device__ __forceinline__ void tma_load_4d(void* dst, const CUtensorMap* map, uint64_t* bar, int k, int block,
                                            uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%0], [%1, {%3, "
      "%4, %4, %5}], [%2], %6;\n" ::"r"(smem_u32(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_u32(bar)), "r"(k), "r"(0), "r"(block), "l"(policy)
      : "memory");
}

}  // namespace laya::cuda::dev
#endif
