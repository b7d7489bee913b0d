// laya_bench_clock_gap: why the engine's host time exceeds its CUDA-event time by more at longer
// forwards (sessions 17-21: ≈ 9 µs at 1×48, 16 at 1×512, 88 at 16×512, i.e. ≈ 0.75 % + 4 µs).
// A one-thread kernel spins until %globaltimer has advanced by D ns; it runs in a captured graph and
// is timed the way CudaBackend::forward times a forward (event, graph launch, event, stream
// synchronisation, host steady_clock around all of it). Per D the medians of: host time, the events'
// elapsed time, the kernel's own %globaltimer span. If host − event grows in proportion to D while
// event = globaltimer, the host's clock and the GPU's disagree (a measurement effect, not work); if
// it stays constant, the proportional part of the engine's gap is something its forward does.
// Prints a table; asserts nothing.
//
// usage: laya_bench_clock_gap [--reps N] [--ns D1,D2,...]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cuda/common.cuh"
#include "bench_common.h"

namespace {

using laya::bench::check;

// Spins until `ns` have passed on %globaltimer; writes its first and last reading to `span`.
__global__ void spin_kernel(uint64_t ns, unsigned long long* span) {
  const uint64_t t0 = laya::cuda::dev::global_ns();
  uint64_t t = t0;
  while (t - t0 < ns) t = laya::cuda::dev::global_ns();
  span[0] = t0;
  span[1] = t;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 30;
  std::vector<int> ns_list{0, 20'000, 100'000, 1'000'000, 10'000'000};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(3, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--ns") == 0) ns_list = laya::bench::parse_ints(argv[i + 1], ',');
  }
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  unsigned long long* span = nullptr;
  check(cudaMallocManaged(&span, 2 * sizeof(unsigned long long)), "span");

  std::printf("| spin D (µs) | host p50 (µs) | event p50 (µs) | globaltimer p50 (µs) | host − event | (host − event) / D |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (int ns : ns_list) {
    cudaGraph_t g = nullptr;
    cudaGraphExec_t exec = nullptr;
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
    spin_kernel<<<1, 1, 0, stream>>>(static_cast<uint64_t>(ns), span);
    check(cudaGetLastError(), "launch");
    check(cudaStreamEndCapture(stream, &g), "end capture");
    check(cudaGraphInstantiate(&exec, g, 0), "instantiate");
    check(cudaGraphLaunch(exec, stream), "warm-up");
    check(cudaStreamSynchronize(stream), "warm-up sync");
    std::vector<double> host, event, timer;
    for (int r = 0; r < reps; ++r) {
      const auto h0 = std::chrono::steady_clock::now();
      check(cudaEventRecord(e0, stream), "record");
      check(cudaGraphLaunch(exec, stream), "launch");
      check(cudaEventRecord(e1, stream), "record");
      check(cudaStreamSynchronize(stream), "sync");
      const auto h1 = std::chrono::steady_clock::now();
      float ms = 0.f;
      check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
      host.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count());
      event.push_back(1e3 * ms);
      timer.push_back(1e-3 * static_cast<double>(span[1] - span[0]));
    }
    const double h = median(host), e = median(event), t = median(timer);
    std::printf("| %.1f | %.2f | %.2f | %.2f | %.2f | %s |\n", 1e-3 * ns, h, e, t, h - e,
                ns > 0 ? (std::to_string(100.0 * (h - e) / (1e-3 * ns)).substr(0, 6) + " %").c_str() : "—");
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(g);
  }
  cudaFree(span);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(stream);
  return 0;
}
