// laya_bench_grid_barrier: what a grid-wide barrier inside a kernel costs on this GPU, set against a
// kernel boundary (docs/benchmarks/cuda.md items 65-66). The barrier is the one item 65 put into the
// small GEMM: thread 0 of each CTA reads the generation, counts itself in with an atomic, and the
// last to arrive re-arms the count and bumps the generation the others poll (acquire loads).
//   loop:  one kernel of N CTAs meeting K times in a row: microseconds a barrier;
//   chain: a graph of L launches of a kernel of N CTAs that waits on the previous grid
//          (griddepcontrol.wait), lets the next launch, adds 1 to one float a thread and, in the
//          "+barrier" rows, meets at one barrier at its end; edges programmatic (the engine's small
//          buckets) or plain: microseconds a kernel.
//   flags: the programmatic chain with griddepcontrol.wait replaced by flags in global memory
//          (docs/benchmarks/cuda.md item 177): "flag count" — each CTA, after its stores, counts
//          itself into its launch's counter (fence + atomic) and the next launch's CTAs poll that
//          counter until the whole grid has counted; "flag CTA" — CTA b polls only the flag of the
//          previous launch's CTA b (the one whose element it reads), a point-to-point hand-off. The
//          counters grow from replay to replay; an epoch kernel before the chain sets the target.
// Prints a table; asserts nothing.
//
// usage: laya_bench_grid_barrier [--ctas 32,64,128] [--threads 128] [--launches 112]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.h"

namespace {

using laya::bench::check;
using laya::bench::launch_link;

constexpr int kSyncStride = 16;  // the generation word 128 bytes after the arrivals

__device__ void grid_barrier(unsigned long long* sync) {
  unsigned long long* generation = sync + kSyncStride;
  unsigned long long gen = 0, seen = 0;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(gen) : "l"(generation) : "memory");
  if (atomicAdd(sync, 1ull) == static_cast<unsigned long long>(gridDim.x) - 1) {
    sync[0] = 0;
    asm volatile("st.release.gpu.global.u64 [%0], %1;\n" ::"l"(generation), "l"(gen + 1) : "memory");
    return;
  }
  do {
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];\n" : "=l"(seen) : "l"(generation) : "memory");
  } while (seen == gen);
}

__global__ void loop_kernel(unsigned long long* sync, int k) {
  for (int i = 0; i < k; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) grid_barrier(sync);
    __syncthreads();
  }
}

__global__ void chain_kernel(float* buf, unsigned long long* sync, int barrier) {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  buf[blockIdx.x * blockDim.x + threadIdx.x] += 1.f;
  if (barrier != 0) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) grid_barrier(sync);
    __syncthreads();
  }
}

enum class FlagMode { count, per_cta };

__global__ void epoch_kernel(unsigned* epoch) { *epoch += 1; }

__device__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Launch i of `launches`; its predecessor had `prev_ctas` CTAs (the same here). Each counter or
// flag has a 128-byte line of its own (2 * kSyncStride words).
__global__ void flag_chain_kernel(float* buf, unsigned* flags, const unsigned* epoch, int i, int launches,
                                  int prev_ctas, int per_cta) {
  const unsigned e = *epoch;  // written by the epoch kernel, complete before launch 0 started
  unsigned* cta_flag = flags + static_cast<size_t>(blockIdx.x) * 2 * kSyncStride;
  if (i > 0 && threadIdx.x == 0) {
    // Polls bounded (≈ seconds): a hand-off that never comes shows as lost updates, not a hang.
    const unsigned* polled = per_cta != 0 ? cta_flag : flags + static_cast<size_t>(i - 1) * 2 * kSyncStride;
    const unsigned target = per_cta != 0 ? e * static_cast<unsigned>(launches) + static_cast<unsigned>(i - 1)
                                         : e * static_cast<unsigned>(prev_ctas);
    for (int spin = 0; spin < (1 << 22) && static_cast<int>(load_acquire(polled) - target) < 0; ++spin) {
    }
  }
  __syncthreads();
  // The next launch only after this one's hand-off, as the engine's kernels trigger after their
  // wait (common.cuh, pdl_prologue): at most two launches resident at a time.
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  buf[blockIdx.x * blockDim.x + threadIdx.x] += 1.f;
  __syncthreads();
  if (threadIdx.x == 0) {
    if (per_cta != 0) {
      const unsigned mine = e * static_cast<unsigned>(launches) + static_cast<unsigned>(i);
      asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(cta_flag), "r"(mine) : "memory");
    } else {
      unsigned* count = flags + static_cast<size_t>(i) * 2 * kSyncStride;
      asm volatile("red.release.gpu.global.add.u32 [%0], 1;\n" ::"l"(count) : "memory");
    }
  }
}

// Microseconds per unit of `units` of a graph (laya::bench::graph_median_ms).
double us_per(cudaStream_t s, cudaGraph_t g, int units) {
  const double ms = laya::bench::graph_median_ms(s, g);
  if (ms < 0) {
    std::fprintf(stderr, "graph does not instantiate\n");
    std::exit(1);
  }
  return 1000.0 * ms / units;
}

double time_loop(cudaStream_t s, unsigned long long* sync, int ctas, int threads) {
  constexpr int kBarriers = 1000;
  cudaGraph_t g = nullptr;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
  loop_kernel<<<ctas, threads, 0, s>>>(sync, kBarriers);
  check(cudaStreamEndCapture(s, &g), "end capture");
  const double us = us_per(s, g, kBarriers);
  cudaGraphDestroy(g);
  return us;
}

double time_chain(cudaStream_t s, float* buf, unsigned long long* sync, int ctas, int threads, int launches,
                  bool programmatic, int barrier) {
  cudaGraph_t g = nullptr;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
  for (int i = 0; i < launches; ++i) launch_link(chain_kernel, s, ctas, threads, programmatic, buf, sync, barrier);
  check(cudaStreamEndCapture(s, &g), "end capture");
  const double us = us_per(s, g, launches);
  cudaGraphDestroy(g);
  return us;
}

double time_flag_chain(cudaStream_t s, float* buf, unsigned* flags, size_t flag_bytes, unsigned* epoch, int ctas,
                       int threads, int launches, FlagMode mode) {
  const size_t n = static_cast<size_t>(ctas) * threads;
  check(cudaMemsetAsync(buf, 0, n * sizeof(float), s), "buffer");
  check(cudaMemsetAsync(flags, 0, flag_bytes, s), "flags");
  check(cudaMemsetAsync(epoch, 0, sizeof(unsigned), s), "epoch");
  cudaGraph_t g = nullptr;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
  epoch_kernel<<<1, 1, 0, s>>>(epoch);
  for (int i = 0; i < launches; ++i)
    launch_link(flag_chain_kernel, s, ctas, threads, true, buf, flags, static_cast<const unsigned*>(epoch), i, launches,
                ctas, mode == FlagMode::per_cta ? 1 : 0);
  check(cudaStreamEndCapture(s, &g), "end capture");
  const double us = us_per(s, g, launches);
  cudaGraphDestroy(g);
  // Every thread's element went through every launch of every replay of graph_median_ms, each
  // reading the previous launch's value: a hand-off that let a launch read too early loses updates.
  std::vector<float> host(n);
  check(cudaMemcpy(host.data(), buf, n * sizeof(float), cudaMemcpyDeviceToHost), "read back");
  const float expect = static_cast<float>(laya::bench::kGraphMedianReplays * launches);
  const auto wrong = std::count_if(host.begin(), host.end(), [&](float v) { return v != expect; });
  if (wrong != 0) {
    std::fprintf(stderr, "flag chain (%s, %d CTAs): %lld of %zu elements lost updates\n",
                 mode == FlagMode::count ? "count" : "CTA", ctas, static_cast<long long>(wrong), n);
    return -1;
  }
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  const auto opts = laya::bench::parse_chain_options(argc, argv, {32, 64, 128});
  const std::vector<int>& ctas_list = opts.ctas;
  const int threads = opts.threads, launches = opts.launches;
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  unsigned long long* sync = nullptr;
  float* buf = nullptr;
  check(cudaMalloc(&sync, 2 * kSyncStride * sizeof(unsigned long long)), "sync");
  check(cudaMemset(sync, 0, 2 * kSyncStride * sizeof(unsigned long long)), "sync");
  int max_ctas = 0;
  for (int c : ctas_list) max_ctas = std::max(max_ctas, c);
  check(cudaMalloc(&buf, static_cast<size_t>(max_ctas) * threads * sizeof(float)), "buffer");
  check(cudaMemset(buf, 0, static_cast<size_t>(max_ctas) * threads * sizeof(float)), "buffer");
  // Flags: one line per launch (count) or per CTA (per_cta), whichever is more.
  const size_t flag_bytes = static_cast<size_t>(std::max(max_ctas, launches)) * 2 * kSyncStride * sizeof(unsigned);
  unsigned* flags = nullptr;
  unsigned* epoch = nullptr;
  check(cudaMalloc(&flags, flag_bytes), "flags");
  check(cudaMalloc(&epoch, sizeof(unsigned)), "epoch");
  std::printf("grid barrier vs kernel boundary; %d threads a CTA; chain: %d launches a graph; us\n", threads, launches);
  std::printf("%6s %10s %14s %18s %12s %16s %12s %12s\n", "CTAs", "barrier", "chain (PDL)", "chain+barrier (PDL)",
              "chain plain", "chain+barrier plain", "flag count", "flag CTA");
  for (int ctas : ctas_list) {
    const double loop = time_loop(s, sync, ctas, threads);
    const double pdl = time_chain(s, buf, sync, ctas, threads, launches, true, 0);
    const double pdl_b = time_chain(s, buf, sync, ctas, threads, launches, true, 1);
    const double plain = time_chain(s, buf, sync, ctas, threads, launches, false, 0);
    const double plain_b = time_chain(s, buf, sync, ctas, threads, launches, false, 1);
    const double fcount = time_flag_chain(s, buf, flags, flag_bytes, epoch, ctas, threads, launches, FlagMode::count);
    const double fcta = time_flag_chain(s, buf, flags, flag_bytes, epoch, ctas, threads, launches, FlagMode::per_cta);
    std::printf("%6d %10.2f %14.2f %18.2f %12.2f %16.2f %12.2f %12.2f\n", ctas, loop, pdl, pdl_b, plain, plain_b, fcount,
                fcta);
  }
  check(cudaDeviceSynchronize(), "final");
  cudaFree(flags);
  cudaFree(epoch);
  cudaFree(sync);
  cudaFree(buf);
  cudaStreamDestroy(s);
  return 0;
}
