// Hopper warpgroup MMA (wgmma) building blocks shared by the fused GeGLU GEMM and the attention
// kernel. The instructions exist only on sm_90a: compiled for another target, each helper traps,
// and the hosts of these kernels select them only where the sm_90a binary runs.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "backends/cuda/build_info.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define LAYA_HAS_WGMMA 1
#endif

namespace laya::cuda {

// Host side: whether `kernel`, a kernel built with these helpers, runs on the current device —
// it loads, and the image loaded is the sm_90a one (current_kernel_image; an sm_90 image without
// the "a" features, or one the driver compiled from older PTX, also loads on a Hopper as
// binaryVersion 90, and there the helpers trap); clears any error the queries leave. Callers cache
// the answer.
template <class Kernel>
bool sm90a_kernel_runs(Kernel* kernel) {
  cudaFuncAttributes attr{};
  const bool ok = cudaFuncGetAttributes(&attr, kernel) == cudaSuccess && current_kernel_image().sm90a;
  cudaGetLastError();
  return ok;
}

}  // namespace laya::cuda

namespace laya::cuda::dev {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// wgmma operand descriptors of a tile stored with the 128-byte swizzle (what TMA's
// CU_TENSOR_MAP_SWIZZLE_128B writes: the 16-byte chunk c of 128-byte row r sits at chunk
// c ^ (r % 8)), tile base 1024-byte aligned, 8-row groups 1024 bytes apart (the stride byte offset).
// K-major (rows along M/N, K contiguous): the leading byte offset is unused; moving along K inside
// the row is a plain address offset (the swizzle is applied to the address).
__device__ __forceinline__ uint64_t sw128_desc(const void* p) {
  const uint64_t addr = smem_u32(p);
  return ((addr & 0x3FFFFull) >> 4) | (1ull << 16) | (static_cast<uint64_t>(1024 >> 4) << 32) | (1ull << 62);
}
// MN-major (rows along K, M/N contiguous: wgmma's transposed operand): the stride byte offset is
// the 8-row group stride along K; the leading one, the stride between 64-element blocks along M/N,
// is unused by tiles 64 elements wide and set to the same 1024 bytes.
__device__ __forceinline__ uint64_t sw128_desc_mn(const void* p) {
  return sw128_desc(p) + (static_cast<uint64_t>((1024 >> 4) - 1) << 16);
}

__device__ __forceinline__ void wgmma_fence() {
#ifdef LAYA_HAS_WGMMA
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#ifdef LAYA_HAS_WGMMA
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#else
  __trap();
#endif
}
template <int N>  // until at most N committed groups are pending
__device__ __forceinline__ void wgmma_wait() {
#ifdef LAYA_HAS_WGMMA
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#else
  __trap();
#endif
}

// Makes this thread's earlier generic-proxy writes to shared memory (st.shared, cp.async) visible
// to wgmma, which reads its shared-memory operands through the async proxy.
__device__ __forceinline__ void fence_proxy_async_smem() {
#ifdef LAYA_HAS_WGMMA
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#else
  __trap();
#endif
}

// Ties a register to the asm stream, so the compiler neither reads an accumulator before the
// wgmma.wait_group that completes it nor writes one after the wgmma that reads it is issued.
__device__ __forceinline__ void fence_reg(float& r) { asm volatile("" : "+f"(r)::"memory"); }
// fence_reg over a whole m64n64 accumulator fragment.
__device__ __forceinline__ void fence_regs(float (&d)[8][4]) {
#pragma unroll
  for (int n = 0; n < 8; ++n)
#pragma unroll
    for (int c = 0; c < 4; ++c) fence_reg(d[n][c]);
}

// d[8][4] (+)= A[64 x 16] . B[16 x 64] (m64n64k16, fp32 accumulators; scale_d 0 overwrites d), A
// from registers in mma.sync's m16n8k16 A-fragment layout (warp w of the warpgroup holds rows
// 16w..16w+15), B by descriptor: kTransB false = K-major (B[k][n] at row n), true = MN-major (row
// k). d[n][c] is mma.sync's C fragment of the 8-column block n: rows g and g + 8 of the warp's 16
// (g = lane / 4), columns 8n + 2 (lane % 4) + (c % 2).
#define LAYA_WGMMA_D8X4_OPERANDS                                                                     \
  "+f"(d[0][0]), "+f"(d[0][1]), "+f"(d[0][2]), "+f"(d[0][3]), "+f"(d[1][0]), "+f"(d[1][1]), "+f"(d[1][2]), \
      "+f"(d[1][3]), "+f"(d[2][0]), "+f"(d[2][1]), "+f"(d[2][2]), "+f"(d[2][3]), "+f"(d[3][0]), "+f"(d[3][1]),  \
      "+f"(d[3][2]), "+f"(d[3][3]), "+f"(d[4][0]), "+f"(d[4][1]), "+f"(d[4][2]), "+f"(d[4][3]), "+f"(d[5][0]),  \
      "+f"(d[5][1]), "+f"(d[5][2]), "+f"(d[5][3]), "+f"(d[6][0]), "+f"(d[6][1]), "+f"(d[6][2]), "+f"(d[6][3]),  \
      "+f"(d[7][0]), "+f"(d[7][1]), "+f"(d[7][2]), "+f"(d[7][3])
#define LAYA_WGMMA_D8X4_REGS \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}"
#define LAYA_WGMMA_RS_M64N64K16(PTX_TYPE)                                                               \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                            \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." PTX_TYPE "." PTX_TYPE " " LAYA_WGMMA_D8X4_REGS   \
               ", {%32,%33,%34,%35}, %36, p, 1, 1, %38;\n}\n"                                             \
               : LAYA_WGMMA_D8X4_OPERANDS                                                               \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(scale_d), "n"(kTransB ? 1 : 0))
template <class T, bool kTransB>
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[8][4], const uint32_t (&a)[4], uint64_t db,
                                                   int scale_d) {
#ifdef LAYA_HAS_WGMMA
  if constexpr (std::is_same_v<T, __half>)
    LAYA_WGMMA_RS_M64N64K16("f16");
  else
    LAYA_WGMMA_RS_M64N64K16("bf16");
#else
  __trap();
#endif
}
#undef LAYA_WGMMA_RS_M64N64K16

// The same product with A by descriptor too (K-major: A[m][k] at row m). Use it for an A operand
// that must outlive the wgmma's issue: ptxas (CUDA 13.0) treats the registers of a register-A
// operand as free once the wgmma is issued — inside a loop it reused them for other values although
// the next iteration read them again (a loop-invariant q), and it gave them to new values while the
// wgmma was still in flight (wrong results both times; the attention kernel's SASS, session 8).
#define LAYA_WGMMA_SS_M64N64K16(PTX_TYPE)                                                               \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                            \
               "wgmma.mma_async.sync.aligned.m64n64k16.f32." PTX_TYPE "." PTX_TYPE " " LAYA_WGMMA_D8X4_REGS   \
               ", %32, %33, p, 1, 1, 0, 0;\n}\n"                                                         \
               : LAYA_WGMMA_D8X4_OPERANDS                                                               \
               : "l"(da), "l"(db), "r"(scale_d))
template <class T>
__device__ __forceinline__ void wgmma_m64n64k16_ss(float (&d)[8][4], uint64_t da, uint64_t db, int scale_d) {
#ifdef LAYA_HAS_WGMMA
  if constexpr (std::is_same_v<T, __half>)
    LAYA_WGMMA_SS_M64N64K16("f16");
  else
    LAYA_WGMMA_SS_M64N64K16("bf16");
#else
  __trap();
#endif
}
#undef LAYA_WGMMA_SS_M64N64K16
#undef LAYA_WGMMA_D8X4_OPERANDS
#undef LAYA_WGMMA_D8X4_REGS

// d[N / 2] += A[64 x 16] . B[N x 16]^T (wgmma m64nNk16, N = 16, 32, 48, 64, 128 or 256 — 256 for laya_bench_wgmma_loop; both operands by
// descriptor, K-major; fp32 accumulators): d[4c + 2h + e] is row 16 w + lane / 4 + 8 h, column
// 8c + 2 (lane % 4) + e of the 64 x N tile (w: the warp in the warpgroup). The small GEMMs' MMA.
template <class T, int N>
__device__ __forceinline__ void wgmma_m64nNk16_ss(float (&d)[N / 2], uint64_t da, uint64_t db);
#ifdef LAYA_HAS_WGMMA
// One N's bf16 and f16 specializations: REGS the accumulators in the instruction, A and B the
// operand numbers of the two descriptors, the rest the accumulators' constraints.
#define LAYA_WGMMA_SS_SPECIALIZE(N, REGS, A, B, ...)                                                               \
  template <>                                                                                                      \
  __device__ __forceinline__ void wgmma_m64nNk16_ss<__nv_bfloat16, N>(float(&d)[N / 2], uint64_t da, uint64_t db) { \
    asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 " REGS ", %" #A ", %" #B ", 1, 1, 1, 0, 0;\n" \
                 : __VA_ARGS__                                                                                     \
                 : "l"(da), "l"(db));                                                                              \
  }                                                                                                                \
  template <>                                                                                                      \
  __device__ __forceinline__ void wgmma_m64nNk16_ss<__half, N>(float(&d)[N / 2], uint64_t da, uint64_t db) {        \
    asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 " REGS ", %" #A ", %" #B ", 1, 1, 1, 0, 0;\n"   \
                 : __VA_ARGS__                                                                                     \
                 : "l"(da), "l"(db));                                                                              \
  }
// Eight accumulators' constraints, d[i] .. d[i + 7].
#define LAYA_WGMMA_D8(i)                                                                                    \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), \
      "+f"(d[i + 7])
LAYA_WGMMA_SS_SPECIALIZE(16, "{%0,%1,%2,%3,%4,%5,%6,%7}", 8, 9,
                         LAYA_WGMMA_D8(0))
LAYA_WGMMA_SS_SPECIALIZE(32, "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}", 16, 17,
                         LAYA_WGMMA_D8(0), LAYA_WGMMA_D8(8))
LAYA_WGMMA_SS_SPECIALIZE(48, "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23}", 24, 25,
                         LAYA_WGMMA_D8(0), LAYA_WGMMA_D8(8), LAYA_WGMMA_D8(16))
LAYA_WGMMA_SS_SPECIALIZE(64, "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}", 32, 33,
                         LAYA_WGMMA_D8(0), LAYA_WGMMA_D8(8), LAYA_WGMMA_D8(16), LAYA_WGMMA_D8(24))
LAYA_WGMMA_SS_SPECIALIZE(128, "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}", 64, 65,
                         LAYA_WGMMA_D8(0), LAYA_WGMMA_D8(8), LAYA_WGMMA_D8(16), LAYA_WGMMA_D8(24), LAYA_WGMMA_D8(32), LAYA_WGMMA_D8(40),
                         LAYA_WGMMA_D8(48), LAYA_WGMMA_D8(56))
LAYA_WGMMA_SS_SPECIALIZE(256, "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}", 128, 129,
                         LAYA_WGMMA_D8(0), LAYA_WGMMA_D8(8), LAYA_WGMMA_D8(16), LAYA_WGMMA_D8(24), LAYA_WGMMA_D8(32), LAYA_WGMMA_D8(40),
                         LAYA_WGMMA_D8(48), LAYA_WGMMA_D8(56), LAYA_WGMMA_D8(64), LAYA_WGMMA_D8(72), LAYA_WGMMA_D8(80), LAYA_WGMMA_D8(88),
                         LAYA_WGMMA_D8(96), LAYA_WGMMA_D8(104), LAYA_WGMMA_D8(112), LAYA_WGMMA_D8(120))
#undef LAYA_WGMMA_SS_SPECIALIZE
#undef LAYA_WGMMA_D8
#endif

}  // namespace laya::cuda::dev
