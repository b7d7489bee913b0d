// liblaya_kernel_trace.so: a CUPTI injection library that records every kernel a program runs —
// graph replays included, with their own start and end on the GPU's clock — without a change to
// the program. The CUDA driver loads it at initialisation when CUDA_INJECTION64_PATH names it:
//
//   CUDA_INJECTION64_PATH=.../liblaya_kernel_trace.so LAYA_KERNEL_TRACE=trace.tsv laya-engine bench ...
//
// One line a kernel, tab-separated: correlation id (kernels of one cudaGraphLaunch share the
// launch's), graph id, start ns, end ns, grid size, block size, registers, dynamic shared memory,
// mangled name; memsets and copies as [memset] / [memcpy] lines. scripts/gpu/kernel_trace.py turns
// it into a timeline per forward: each kernel's time in context and the gap before it — what no
// serialising profiler (ncu) shows. The concurrent kernel activity kind does not serialise kernels:
// a forward's span stays within ≈ 1.5 % of the untraced device time, while the host pays
// ≈ 1.5–2.5 µs a kernel (docs/benchmarks/cuda.md item 161).
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

FILE* g_out = nullptr;
std::mutex g_mutex;
constexpr size_t kBufferBytes = size_t{8} << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *size = kBufferBytes;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *max_records = 0;  // as many as fit
}

// A memset or copy as a line of the kernels' format: the byte count stands in the grid column, 0
// in the block, register and shared-memory columns.
template <class Record>
void put_transfer(const Record* m, const char* tag) {
  std::fprintf(g_out, "%u\t%u\t%llu\t%llu\t%llu\t0\t0\t0\t%s\n", m->correlationId, m->graphId,
               static_cast<unsigned long long>(m->start), static_cast<unsigned long long>(m->end),
               static_cast<unsigned long long>(m->bytes), tag);
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (g_out == nullptr) continue;
    // Memsets and copies are graph nodes too (cuBLASLt may add memsets for its workspace).
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      put_transfer(reinterpret_cast<const CUpti_ActivityMemset4*>(record), "[memset]");
      continue;
    }
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      put_transfer(reinterpret_cast<const CUpti_ActivityMemcpy6*>(record), "[memcpy]");
      continue;
    }
    if (record->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) continue;
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
    std::fprintf(g_out, "%u\t%u\t%llu\t%llu\t%d\t%d\t%u\t%d\t%s\n", k->correlationId, k->graphId,
                 static_cast<unsigned long long>(k->start), static_cast<unsigned long long>(k->end),
                 k->gridX * k->gridY * k->gridZ, k->blockX * k->blockY * k->blockZ,
                 static_cast<unsigned>(k->registersPerThread), k->dynamicSharedMemory,
                 k->name != nullptr ? k->name : "?");
  }
  std::free(buffer);
}

void flush_at_exit() {
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_out != nullptr) {
    std::fclose(g_out);
    g_out = nullptr;
  }
}

}  // namespace

extern "C" int InitializeInjection(void) {
  const char* env = std::getenv("LAYA_KERNEL_TRACE");
  const char* path = env != nullptr ? env : "kernel_trace.tsv";
  g_out = std::fopen(path, "w");
  if (g_out == nullptr) {
    std::fprintf(stderr, "laya_kernel_trace: cannot open %s\n", path);
    return 0;
  }
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS ||
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS) {
    std::fprintf(stderr, "laya_kernel_trace: CUPTI refused the kernel, memset or copy activity\n");
    return 0;
  }
  std::atexit(flush_at_exit);
  return 1;
}
