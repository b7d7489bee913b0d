#include "backends/cuda/l2_prefetch.cuh"

#include "backends/cuda/check.h"

namespace laya::cuda {

namespace {

constexpr int64_t kChunk = int64_t{64} << 10;  // bytes per block
constexpr int kThreads = 128;
constexpr int kLine = 128;

__global__ void __launch_bounds__(kThreads) l2_prefetch_kernel(const char* p, int64_t bytes, bool lines) {
  const int64_t start = static_cast<int64_t>(blockIdx.x) * kChunk;
  const int64_t n = min(kChunk, bytes - start);  // a multiple of 16
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (!lines) {
    if (threadIdx.x == 0)
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p + start), "r"(static_cast<uint32_t>(n))
                   : "memory");
    return;
  }
#endif
  for (int64_t off = static_cast<int64_t>(threadIdx.x) * kLine; off < n; off += int64_t{kThreads} * kLine)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + start + off));
}

}  // namespace

void launch_l2_prefetch(const void* p, int64_t bytes, bool lines, cudaStream_t stream) {
  LAYA_REQUIRE(p != nullptr && reinterpret_cast<uintptr_t>(p) % 16 == 0 && bytes >= 0, ErrorKind::internal,
               "l2 prefetch: needs a 16-byte aligned range");
  bytes -= bytes % 16;
  if (bytes == 0) return;
  const auto blocks = static_cast<unsigned>((bytes + kChunk - 1) / kChunk);
  l2_prefetch_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<const char*>(p), bytes, lines);
  LAYA_CUDA_CHECK_LAUNCH();
}

}  // namespace laya::cuda
