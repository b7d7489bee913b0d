// laya_bench_clock_gap: why the engine's host time exceeds its CUDA-event time by more at longer
// forwards (sessions 17-22: ≈ 10 µs at 1×48, 13 at 1×512, 23 at 4×464, 88 at 16×512).
// A graph of `chain` kernels, each spinning until %globaltimer has advanced by D / chain ns on
// `blocks` CTAs (256 threads; with blocks > 1 every thread also runs FMAs, to draw power as a
// forward does), is timed the way CudaBackend::forward times a forward (event, graph launch,
// event, stream synchronisation, host steady_clock around all of it). Per configuration the
// medians of: host time, the events' elapsed time, the last kernel's own %globaltimer span
// (× chain), and the host time of the same launch and wait without the start event (interleaved).
// --sched sets the context's scheduling flag (auto, spin, yield, blocking), --sync how the host
// waits (stream: cudaStreamSynchronize as the engine; event: cudaEventSynchronize on the stop event;
// query: the host polls cudaEventQuery on it). If host − event grows with D the clocks disagree or
// the wait costs more for longer work; if it stays constant here while the engine's grows, the
// engine's forward does something outside the events. Findings: docs/benchmarks/cuda.md items
// 119 and 121. Prints a table; asserts nothing.
//
// usage: laya_bench_clock_gap [--reps N] [--ns D1,D2,...] [--blocks B1,B2,...] [--chain C1,C2,...]
//                             [--sched auto|spin|yield|blocking] [--sync stream|event|query]
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

// Spins until `ns` have passed on %globaltimer; thread 0 of CTA 0 writes its first and last reading
// to `span`. With `burn`, every thread runs a chain of FMAs between readings (power, not time).
__global__ void spin_kernel(uint64_t ns, bool burn, unsigned long long* span) {
  const uint64_t t0 = laya::cuda::dev::global_ns();
  uint64_t t = t0;
  float a = static_cast<float>(threadIdx.x), b = 1.0001f;
  while (t - t0 < ns) {
    if (burn) {
#pragma unroll 16
      for (int i = 0; i < 256; ++i) a = fmaf(a, b, 0.5f);
    }
    t = laya::cuda::dev::global_ns();
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    span[0] = t0;
    span[1] = t + (a == 12345.f ? 1u : 0u);  // keeps the FMAs
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 30;
  std::string sync = "stream", sched = "auto";
  std::vector<int> ns_list{0, 20'000, 100'000, 1'000'000, 10'000'000}, blocks_list{1}, chain_list{1};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::max(3, std::atoi(argv[i + 1]));
    else if (std::strcmp(argv[i], "--ns") == 0) ns_list = laya::bench::parse_ints(argv[i + 1], ',');
    else if (std::strcmp(argv[i], "--blocks") == 0) blocks_list = laya::bench::parse_ints(argv[i + 1], ',');
    else if (std::strcmp(argv[i], "--chain") == 0) chain_list = laya::bench::parse_ints(argv[i + 1], ',');
    else if (std::strcmp(argv[i], "--sync") == 0) sync = argv[i + 1];
    else if (std::strcmp(argv[i], "--sched") == 0) sched = argv[i + 1];
  }
  // How the host waits: the context's scheduling flag (before the context exists), then the call.
  const unsigned flags = sched == "spin"       ? cudaDeviceScheduleSpin
                         : sched == "yield"    ? cudaDeviceScheduleYield
                         : sched == "blocking" ? cudaDeviceScheduleBlockingSync
                                               : cudaDeviceScheduleAuto;
  check(cudaSetDeviceFlags(flags), "device flags");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  check(cudaEventCreate(&e0), "event");
  check(cudaEventCreate(&e1), "event");
  auto wait = [&](cudaEvent_t last) {
    if (sync == "event") {
      check(cudaEventSynchronize(last), "event sync");
    } else if (sync == "query") {  // the host polls the last event itself
      cudaError_t q;
      while ((q = cudaEventQuery(last)) == cudaErrorNotReady) {
      }
      check(q, "event query");
    } else {
      check(cudaStreamSynchronize(stream), "stream sync");
    }
  };
  // Pinned and mapped (as the engine's results): managed memory would migrate between the host's
  // read and the next kernel's write, a page fault inside the timed launch.
  unsigned long long* span = nullptr;
  check(cudaHostAlloc(&span, 2 * sizeof(unsigned long long), cudaHostAllocMapped), "span");

  std::printf("sched %s, sync %s\n\n", sched.c_str(), sync.c_str());
  std::printf("| D (µs) | CTAs | kernels | host p50 (µs) | event p50 (µs) | globaltimer (µs) | host − event | event / globaltimer | host p50 without the start event (µs) |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (int blocks : blocks_list)
    for (int chain : chain_list)
      for (int ns : ns_list) {
        blocks = std::max(1, blocks);
        chain = std::max(1, chain);
        const uint64_t per = static_cast<uint64_t>(std::max(0, ns)) / static_cast<uint64_t>(chain);
        cudaGraph_t g = nullptr;
        cudaGraphExec_t exec = nullptr;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
        for (int c = 0; c < chain; ++c) {
          spin_kernel<<<blocks, blocks > 1 ? 256 : 1, 0, stream>>>(per, blocks > 1, span);
          check(cudaGetLastError(), "launch");
        }
        check(cudaStreamEndCapture(stream, &g), "end capture");
        check(cudaGraphInstantiate(&exec, g, 0), "instantiate");
        check(cudaGraphLaunch(exec, stream), "warm-up");
        check(cudaStreamSynchronize(stream), "warm-up sync");
        std::vector<double> host, event, timer, bare;
        for (int r = 0; r < reps; ++r) {
          const auto b0 = std::chrono::steady_clock::now();  // the same without the start event
          check(cudaGraphLaunch(exec, stream), "launch");
          check(cudaEventRecord(e1, stream), "record");  // what the wait polls
          wait(e1);
          bare.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - b0).count());
          const auto h0 = std::chrono::steady_clock::now();
          check(cudaEventRecord(e0, stream), "record");
          check(cudaGraphLaunch(exec, stream), "launch");
          check(cudaEventRecord(e1, stream), "record");
          wait(e1);
          const auto h1 = std::chrono::steady_clock::now();
          float ms = 0.f;
          check(cudaEventElapsedTime(&ms, e0, e1), "elapsed");
          host.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count());
          event.push_back(1e3 * ms);
          timer.push_back(1e-3 * static_cast<double>(span[1] - span[0]) * chain);  // the last kernel's span
        }
        const double h = median(host), e = median(event), t = median(timer), hb = median(bare);
        std::printf("| %.1f | %d | %d | %.2f | %.2f | %.2f | %.2f | %.4f | %.2f |\n", 1e-3 * ns, blocks, chain, h, e, t,
                    h - e, t > 0 ? e / t : 0.0, hb);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(g);
      }
  cudaFreeHost(span);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaStreamDestroy(stream);
  return 0;
}
