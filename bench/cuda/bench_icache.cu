// laya_bench_icache: what a kernel's code costs when the SM's instruction caches do not hold it
// (docs/benchmarks/cuda.md item 192). The engine's kernels are 8-76 KB of sm_90a code each, and a
// small bucket's forward runs seven different ones a layer; item 183 found two attention
// instantiations in one forward 0.7-1.4 us a layer slower than one, and the instruction caches are a
// suspect.
//   A "code kernel" runs kInstr FFMAs of straight-line code once (eight independent accumulators, so
//   it issues about one instruction a cycle a warp when its code is cached) after the programmatic
//   wait, as the engine's kernels do. A chain of `launches` launches (programmatic edges, one graph)
//   cycles through D distinct instantiations of the same size: D = 1 replays one kernel's code,
//   whose lines stay cached; D = 16 moves 16x the code through the caches before a kernel's code
//   comes round again. The difference between the columns is the cost of fetching cold code.
//   "warm" rows: the same code run once before the programmatic wait, its result dropped (item 195):
//   whether the code fetched while the previous kernel runs is still cached after the wait.
// Prints microseconds a kernel; asserts nothing.
//
// usage: laya_bench_icache [--ctas 48,132] [--threads 128] [--launches 112]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.h"

namespace {

using laya::bench::check;

constexpr int kDistinct = 16;                           // instantiations per code size
constexpr int kSizes[] = {64, 512, 1024, 2048, 4096};  // FFMAs: ~1, 8, 16, 32, 64 KB of code

// kSalt makes each instantiation its own function (its own code addresses); the arithmetic is the
// same. The eight accumulators feed each other across iterations, so nothing folds, and eight FFMAs
// of an iteration are independent (the loop is one basic block of ~kInstr instructions).
// kWarm: the body runs twice through the same instructions (a rolled loop of two passes): once before
// the programmatic wait on a value that may be stale, its result dropped, to bring the code into
// the SM's instruction caches while the previous kernel runs, then after the wait for real. Loads go
// around L1 (ld.global.cg), so the first pass leaves no stale line there.
template <int kSalt, int kInstr, bool kWarm>
__global__ void code_kernel(float* buf) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int pass = kWarm ? 0 : 1; pass < 2; ++pass) {
    if (pass == 1) {
      asm volatile("griddepcontrol.wait;\n" ::: "memory");
      asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
    }
    const float x = __ldcg(buf + i);
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = x * static_cast<float>(kSalt * 8 + k + 1);
#pragma unroll
    for (int n = 0; n < kInstr / 8; ++n) {
      float b[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) b[k] = fmaf(a[k], x, a[(k + 1) & 7]);
#pragma unroll
      for (int k = 0; k < 8; ++k) a[k] = b[k];
    }
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += a[k];
    if (pass == 1) buf[i] = s * 1e-30f + x;  // the element stays finite and changes little
  }
}

using Kernel = void (*)(float*);

template <int kInstr, bool kWarm, int... kSalts>
std::vector<Kernel> kernels_of(std::integer_sequence<int, kSalts...>) {
  return {code_kernel<kSalts, kInstr, kWarm>...};
}

template <int kInstr, bool kWarm>
std::vector<Kernel> kernels_of_size() {
  return kernels_of<kInstr, kWarm>(std::make_integer_sequence<int, kDistinct>{});
}

// Microseconds a kernel of a chain cycling through the first `distinct` kernels.
double time_chain(cudaStream_t s, const std::vector<Kernel>& ks, int distinct, float* buf, int ctas, int threads,
                  int launches) {
  cudaGraph_t g = nullptr;
  check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "capture");
  for (int i = 0; i < launches; ++i) laya::bench::launch_link(ks[static_cast<size_t>(i % distinct)], s, ctas, threads, true, buf);
  check(cudaStreamEndCapture(s, &g), "end capture");
  const double ms = laya::bench::graph_median_ms(s, g);
  cudaGraphDestroy(g);
  if (ms < 0) {
    std::fprintf(stderr, "graph does not instantiate\n");
    std::exit(1);
  }
  return 1000.0 * ms / launches;
}

}  // namespace

int main(int argc, char** argv) {
  const auto opts = laya::bench::parse_chain_options(argc, argv, {48, 132});
  const std::vector<int>& ctas_list = opts.ctas;
  const int threads = opts.threads, launches = opts.launches;
  const std::vector<std::vector<Kernel>> by_size[2] = {
      {kernels_of_size<kSizes[0], false>(), kernels_of_size<kSizes[1], false>(), kernels_of_size<kSizes[2], false>(),
       kernels_of_size<kSizes[3], false>(), kernels_of_size<kSizes[4], false>()},
      {kernels_of_size<kSizes[0], true>(), kernels_of_size<kSizes[1], true>(), kernels_of_size<kSizes[2], true>(),
       kernels_of_size<kSizes[3], true>(), kernels_of_size<kSizes[4], true>()}};
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
  int max_ctas = 0;
  for (int c : ctas_list) max_ctas = c > max_ctas ? c : max_ctas;
  float* buf = nullptr;
  const size_t n = static_cast<size_t>(max_ctas) * threads;
  check(cudaMalloc(&buf, n * sizeof(float)), "buffer");
  const std::vector<float> ones(n, 1.f);
  check(cudaMemcpy(buf, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice), "buffer");
  const int distinct_list[] = {1, 2, 4, 8, 16};
  std::printf("cold code against cached code: a chain of %d launches (programmatic edges) cycling through D\n"
              "distinct kernels of the same straight-line code; %d threads a CTA; us a kernel\n",
              launches, threads);
  std::printf("%6s %8s %5s", "CTAs", "FFMAs", "warm");
  for (int d : distinct_list) std::printf(" %9s%-2d", "D=", d);
  std::printf(" %12s\n", "D16 - D1");
  for (int ctas : ctas_list) {
    for (size_t z = 0; z < std::size(kSizes); ++z) {
      for (int warm = 0; warm < 2; ++warm) {
        std::printf("%6d %8d %5s", ctas, kSizes[z], warm != 0 ? "yes" : "no");
        double first = 0, last = 0;
        for (int d : distinct_list) {
          const double us = time_chain(s, by_size[warm][z], d, buf, ctas, threads, launches);
          if (d == 1) first = us;
          last = us;
          std::printf(" %11.3f", us);
        }
        std::printf(" %12.3f\n", last - first);
      }
    }
  }
  check(cudaDeviceSynchronize(), "final");
  cudaFree(buf);
  cudaStreamDestroy(s);
  return 0;
}
