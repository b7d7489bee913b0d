// A copy from pinned host memory to the device done by a kernel that reads the host memory over
// the bus (the pinned block is mapped: cudaMallocHost under unified addressing), instead of a
// copy-engine memcpy. Inside the forward's graph a memcpy node is a hand-over between the copy
// engine and the SMs on each side of it; a kernel is one more node of the SMs' own chain, and it
// can be launched with Programmatic Dependent Launch like the kernels around it
// (docs/cuda.md, "Batch layout, buckets, staging").
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace laya::cuda {

// Copies `words` 32-bit words from `host` (a device-usable address of pinned host memory) to `dev`
// (16 bytes a thread where the addresses are 16-byte aligned). The same bytes as cudaMemcpyAsync:
// the same inputs reach the forward either way.
void launch_copy_from_host(const int32_t* host, int32_t* dev, int64_t words, cudaStream_t stream);

}  // namespace laya::cuda
