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

// A kernel that does what a small graph memset node does (graph_memsets.h): the (elem_bytes-wide)
// value into `width` elements of each of `height` rows `pitch` bytes apart from dst. Launched with a
// programmatic edge, it waits for the kernel before it (griddepcontrol.wait) before it writes.
struct FillParams {
  void* dst = nullptr;
  size_t pitch = 0;
  uint32_t value = 0;
  int32_t elem_bytes = 1;  // 1, 2 or 4
  int32_t width = 0, height = 1;
};
constexpr int kFillThreads = 128;
// The kernel's function (one block of kFillThreads threads, one FillParams argument), for a graph's
// kernel node.
const void* fill_kernel_function();

}  // namespace laya::cuda
