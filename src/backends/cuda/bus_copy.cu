#include "backends/cuda/bus_copy.cuh"

#include "backends/cuda/check.h"
#include "backends/cuda/common.cuh"

namespace laya::cuda {

namespace {

constexpr int kCopyThreads = 256;

// Words [4i, 4i + 4) per thread i, as one 16-byte chunk where the addresses allow (`vec`) and the
// chunk is whole: every read over the bus is issued at once, so the copy costs about one bus round
// trip for the small blocks of small buckets.
__global__ void __launch_bounds__(kCopyThreads) copy_kernel(const int32_t* src, int32_t* dst, int64_t n, bool vec) {
  dev::pdl_prologue();
  const int64_t i = 4 * (static_cast<int64_t>(blockIdx.x) * kCopyThreads + threadIdx.x);
  if (vec && i + 4 <= n) {
    *reinterpret_cast<int4*>(dst + i) = *reinterpret_cast<const int4*>(src + i);
    return;
  }
  for (int64_t j = i; j < n && j < i + 4; ++j) dst[j] = src[j];
}

__global__ void __launch_bounds__(kFillThreads) fill_kernel(FillParams p) {
  dev::pdl_prologue();
  for (int i = static_cast<int>(threadIdx.x); i < p.width * p.height; i += kFillThreads) {
    char* at = static_cast<char*>(p.dst) + static_cast<size_t>(i / p.width) * p.pitch +
               static_cast<size_t>(i % p.width) * static_cast<size_t>(p.elem_bytes);
    if (p.elem_bytes == 4)
      *reinterpret_cast<uint32_t*>(at) = p.value;
    else if (p.elem_bytes == 2)
      *reinterpret_cast<uint16_t*>(at) = static_cast<uint16_t>(p.value);
    else
      *reinterpret_cast<uint8_t*>(at) = static_cast<uint8_t>(p.value);
  }
}

}  // namespace

const void* fill_kernel_function() { return reinterpret_cast<const void*>(&fill_kernel); }

void launch_copy_from_host(const int32_t* host, int32_t* dev, int64_t words, cudaStream_t stream) {
  LAYA_REQUIRE(host != nullptr && dev != nullptr && words >= 0, ErrorKind::internal, "copy_from_host: bad parameters");
  if (words == 0) return;
  const bool vec = ((reinterpret_cast<uintptr_t>(host) | reinterpret_cast<uintptr_t>(dev)) & 15) == 0;
  const int64_t threads = (words + 3) / 4;
  launch_kernel(copy_kernel, static_cast<unsigned>((threads + kCopyThreads - 1) / kCopyThreads), kCopyThreads, stream,
                true, host, dev, words, vec);
  LAYA_CUDA_CHECK_LAUNCH();
}

}  // namespace laya::cuda
