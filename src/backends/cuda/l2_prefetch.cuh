// Asks the GPU to bring a range of device memory into its L2 cache, without waiting for it and
// without reading anything into the SMs: the weight-prefetch branch of a forward (weight_prefetch.h)
// uses it so that a small-batch GEMM finds its weight matrix in L2 instead of waiting on DRAM.
// A hint only: nothing it does changes any result.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace laya::cuda {

// Prefetches [p, p + bytes) (p 16-byte aligned; a tail of fewer than 16 bytes is skipped). On
// sm_90 each block issues one bulk prefetch of up to 64 KiB (cp.async.bulk.prefetch: the copy
// engine walks the range), elsewhere (or with `lines`) its threads issue one prefetch per 128-byte
// line. The kernel ends as soon as the requests are issued.
void launch_l2_prefetch(const void* p, int64_t bytes, bool lines, cudaStream_t stream);

}  // namespace laya::cuda
