// laya_bench_grid_barrier: what a grid-wide barrier inside a kernel costs on this GPU, set against a
// kernel boundary (docs/benchmarks/cuda.md items 65-66). The barrier is the one item 65 put into the
// small GEMM: thread 0 of each CTA reads the generation, counts itself in with an atomic, and the
// last to arrive re-arms the count and bumps the generation the others poll (acquire loads).
//   loop:  one kernel of N CTAs meeting K times in a row: microseconds a barrier;
//   chain: a graph of L launches of a kernel of N CTAs that waits on the previous grid
//          (griddepcontrol.wait), lets the next launch, adds 1 to one float a thread and, in the
//          "+barrier" rows, meets at one barrier at its end; edges programmatic (the engine's small
//          buckets) or plain: microseconds a kernel.
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
  for (int i = 0; i < launches; ++i) {
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(static_cast<unsigned>(ctas));
    cfg.blockDim = dim3(static_cast<unsigned>(threads));
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = programmatic ? 1 : 0;
    check(cudaLaunchKernelEx(&cfg, chain_kernel, buf, sync, barrier), "launch");
  }
  check(cudaStreamEndCapture(s, &g), "end capture");
  const double us = us_per(s, g, launches);
  cudaGraphDestroy(g);
  return us;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ctas_list{32, 64, 128};
  int threads = 128, launches = 112;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--ctas") {
      ctas_list = laya::bench::parse_ints(val, ',');
    } else if (opt == "--threads") {
      threads = std::atoi(val.c_str());
    } else if (opt == "--launches") {
      launches = std::atoi(val.c_str());
    } else {
      std::fprintf(stderr, "unknown option %s\n", opt.c_str());
      return 2;
    }
  }
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
  std::printf("grid barrier vs kernel boundary; %d threads a CTA; chain: %d launches a graph; us\n", threads, launches);
  std::printf("%6s %10s %14s %18s %12s %16s\n", "CTAs", "barrier", "chain (PDL)", "chain+barrier (PDL)", "chain plain",
              "chain+barrier plain");
  for (int ctas : ctas_list) {
    const double loop = time_loop(s, sync, ctas, threads);
    const double pdl = time_chain(s, buf, sync, ctas, threads, launches, true, 0);
    const double pdl_b = time_chain(s, buf, sync, ctas, threads, launches, true, 1);
    const double plain = time_chain(s, buf, sync, ctas, threads, launches, false, 0);
    const double plain_b = time_chain(s, buf, sync, ctas, threads, launches, false, 1);
    std::printf("%6d %10.2f %14.2f %18.2f %12.2f %16.2f\n", ctas, loop, pdl, pdl_b, plain, plain_b);
  }
  check(cudaDeviceSynchronize(), "final");
  cudaFree(sync);
  cudaFree(buf);
  cudaStreamDestroy(s);
  return 0;
}
