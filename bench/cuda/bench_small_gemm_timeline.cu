// laya_bench_small_gemm_timeline: where a small GEMM's time goes in the chain of a small bucket's
// encoder (docs/benchmarks/cuda.md item 69). A graph of L layers of the engine's 1x48 encoder
// kernel sequence, every edge programmatic as in the engine:
//   ln -> QKV (plain 3072x1024) -> attn -> Wo (plain 1024x1024) -> ln2 -> Wi (geglu 2x2624x1024)
//   -> Wo2 (partials 1024x2624, 2 splits) -> next layer's ln
// where the GEMMs are the engine's small_gemm kernel (its instrumented instance when timed) and
// ln / attn / ln2 stand-ins (16 CTAs that wait, let the next kernel launch, read the previous
// output and rewrite the next input). Per layout of the small GEMM (--wide 0: narrow, 1: wide) it
// times the graph with the plain and the instrumented kernel, then prints, per kernel of the layer (median over layers 1..L-1),
// every event of SmallGemmEvent relative to the end of the kernel before (the last CTA's exit):
// when the first / last CTA started, when the waits returned, when the first stage arrived, when
// the last MMA ended and the last CTA exited — and, from each CTA's clock64, how long its own
// phases took. First it measures %globaltimer's step and the SM clock against it.
// Prints tables; asserts nothing.
//
// --carveout -1,100: the launches' preferred shared-memory carveout (PdlScope's, as the engine
// sets it for the narrow layout's buckets; -1: the driver's choice), one pass per value.
//
// usage: laya_bench_small_gemm_timeline [--m 48] [--layers 28] [--wide 0,1] [--carveout -1]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backends/cuda/common.cuh"
#include "backends/cuda/pdl.h"
#include "backends/cuda/small_gemm.cuh"
#include "bench_common.h"

namespace {

using laya::bench::check;
using laya::cuda::SmallGemmArgs;
using laya::cuda::SmallGemmEvent;
using laya::cuda::SmallGemmForm;
constexpr int kFields = laya::cuda::kSmallGemmTimelineFields;
constexpr int kMaxCtas = 164;  // Wi's geglu grid at N = 2624
constexpr int kTouchCtas = 16, kTouchThreads = 256;
constexpr int kD = 1024, kQkv = 3072, kInter = 2624, kSplits = 2;
using laya::cuda::dev::global_ns;

// %globaltimer read back to back: the smallest and the typical step; and SM cycles per ns over ~50 us.
__global__ void timer_probe(uint64_t* out) {
  uint64_t prev = global_ns(), min_step = ~0ull, steps = 0, sum = 0;
  const uint64_t c0 = clock64(), t0 = prev;
  while (prev - t0 < 50000) {
    const uint64_t t = global_ns();
    if (t != prev) {
      min_step = t - prev < min_step ? t - prev : min_step;
      sum += t - prev;
      ++steps;
      prev = t;
    }
  }
  out[0] = min_step;
  out[1] = steps > 0 ? sum / steps : 0;
  out[2] = static_cast<uint64_t>(clock64()) - c0;
  out[3] = prev - t0;
}

// Stands in for the small kernels between the GEMMs; stamps entry and exit as the GEMM's records do.
__global__ void touch(const __nv_bfloat16* prev, int prev_elems, __nv_bfloat16* next, const __nv_bfloat16* seed,
                      int next_elems, uint64_t* timeline) {
  uint64_t* rec = timeline + static_cast<size_t>(blockIdx.x) * kFields;
  if (threadIdx.x == 0) {
    rec[2 * static_cast<int>(SmallGemmEvent::entry)] = global_ns();
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    rec[kFields - 1] = sm;
  }
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  if (threadIdx.x == 0) rec[2 * static_cast<int>(SmallGemmEvent::consumer_waited)] = global_ns();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < next_elems; i += gridDim.x * blockDim.x) {
    const float o = __bfloat162float(prev[i % prev_elems]);
    next[i] = o == 1e30f ? prev[i % prev_elems] : seed[i];
  }
  __syncthreads();
  if (threadIdx.x == 0) rec[2 * static_cast<int>(SmallGemmEvent::exit)] = global_ns();
}

enum Role { kLn, kQkvGemm, kAttn, kWoGemm, kLn2, kWiGemm, kWo2Gemm, kRoles };
const char* const kRoleNames[kRoles] = {"ln", "QKV", "attn", "Wo", "ln2", "Wi geglu", "Wo2 parts"};

struct Chain {
  int m = 48, layers = 28, carveout = -1;
  void *wqkv = nullptr, *wo = nullptr, *wi = nullptr, *wo2 = nullptr;
  __nv_bfloat16 *x = nullptr, *qkv = nullptr, *attn = nullptr, *o = nullptr, *h = nullptr, *g = nullptr,
                *seed = nullptr;
  float* parts = nullptr;
  uint64_t* records = nullptr;  // [launch][kMaxCtas][kFields]
  cudaStream_t stream = nullptr;

  int launches() const { return layers * kRoles; }
  uint64_t* rec(int launch) const { return records + static_cast<size_t>(launch) * kMaxCtas * kFields; }

  // The layers' kernels on `stream` (under capture): the instrumented GEMMs when `timeline`.
  void record(bool wide, bool timeline) const {
    const laya::cuda::PdlScope pdl(true, carveout);
    auto touch_launch = [&](int launch, const void* prev, int prev_elems, __nv_bfloat16* next, int next_elems) {
      laya::cuda::launch_kernel(touch, dim3(kTouchCtas), dim3(kTouchThreads), stream, true,
                                static_cast<const __nv_bfloat16*>(prev), prev_elems, next,
                                static_cast<const __nv_bfloat16*>(seed), next_elems, rec(launch));
    };
    auto gemm = [&](int launch, const void* w, const __nv_bfloat16* in, void* out, int n, int k, SmallGemmForm form,
                    int splits) {
      SmallGemmArgs<__nv_bfloat16> a{in, static_cast<const __nv_bfloat16*>(w), out, m, n, k, form, splits};
      a.wide = wide;
      a.timeline = timeline ? rec(launch) : nullptr;
      laya::cuda::launch_small_gemm(a, stream);
    };
    for (int l = 0; l < layers; ++l) {
      const int b = l * kRoles;
      const size_t wq = static_cast<size_t>(kQkv) * kD, wd = static_cast<size_t>(kD) * kD,
                   wi2 = 2ull * kInter * kD, wo2n = static_cast<size_t>(kD) * kInter;
      touch_launch(b + kLn, parts, 2 * m * kD, x, m * kD);  // fp32 partials read as bf16 pairs: it only touches them
      gemm(b + kQkvGemm, static_cast<char*>(wqkv) + 2 * wq * l, x, qkv, kQkv, kD, SmallGemmForm::plain, 1);
      touch_launch(b + kAttn, qkv, m * kQkv, attn, m * kD);
      gemm(b + kWoGemm, static_cast<char*>(wo) + 2 * wd * l, attn, o, kD, kD, SmallGemmForm::plain, 1);
      touch_launch(b + kLn2, o, m * kD, h, m * kD);
      gemm(b + kWiGemm, static_cast<char*>(wi) + 2 * wi2 * l, h, g, kInter, kD, SmallGemmForm::geglu, 1);
      gemm(b + kWo2Gemm, static_cast<char*>(wo2) + 2 * wo2n * l, g, parts, kD, kInter, SmallGemmForm::partials, kSplits);
    }
  }
};

template <class T>
T* device_zeros(size_t n) {
  T* p = nullptr;
  check(cudaMalloc(&p, n * sizeof(T)), "alloc");
  check(cudaMemset(p, 0, n * sizeof(T)), "zero");
  return p;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int ctas_of(Role r, bool wide) {
  const int rows = wide ? 64 : 32;  // W rows a CTA
  switch (r) {
    case kQkvGemm: return kQkv / rows;
    case kWoGemm: return kD / rows;
    case kWiGemm: return kInter / (rows / 2);
    case kWo2Gemm: return kD / rows * kSplits;
    default: return kTouchCtas;
  }
}
bool is_gemm(Role r) { return r == kQkvGemm || r == kWoGemm || r == kWiGemm || r == kWo2Gemm; }

uint64_t ev(const uint64_t* rec, SmallGemmEvent e, bool clk = false) {
  return rec[2 * static_cast<int>(e) + (clk ? 1 : 0)];
}

// The tables of one instrumented replay (records copied back), times in us.
void report(const std::vector<uint64_t>& all, const Chain& c, bool wide, double cycles_per_ns) {
  auto rec = [&](int launch, int cta) { return all.data() + (static_cast<size_t>(launch) * kMaxCtas + cta) * kFields; };
  auto us = [](double ns) { return ns / 1000.0; };
  std::printf("  %-10s %5s %7s %7s %7s %7s %7s %7s %7s %5s  (us after the previous kernel's last exit; medians over layers)\n",
              "kernel", "ctas", "first", "last", "p.wait", "c.wait", "stage0", "lastmma", "end", "SMs");
  std::vector<double> layer_span(c.layers, 0.0);
  for (int r = 0; r < kRoles; ++r) {
    const Role role = static_cast<Role>(r);
    const int n = ctas_of(role, wide);
    std::vector<double> first, last, pwait, cwait, stage0, lastmma, end, sms;
    for (int l = 1; l < c.layers; ++l) {
      const int launch = l * kRoles + r;
      uint64_t prev_end = 0;
      for (int i = 0; i < ctas_of(static_cast<Role>((r + kRoles - 1) % kRoles), wide); ++i)
        prev_end = std::max(prev_end, ev(rec(launch - 1, i), SmallGemmEvent::exit));
      uint64_t f = ~0ull, la = 0, ex = 0, lm = 0;
      std::vector<double> pw, cw, s0;
      std::vector<int> seen;
      for (int i = 0; i < n; ++i) {
        const uint64_t* q = rec(launch, i);
        f = std::min(f, ev(q, SmallGemmEvent::entry));
        la = std::max(la, ev(q, SmallGemmEvent::entry));
        ex = std::max(ex, ev(q, SmallGemmEvent::exit));
        cw.push_back(static_cast<double>(ev(q, SmallGemmEvent::consumer_waited)) - prev_end);
        if (is_gemm(role)) {
          lm = std::max(lm, ev(q, SmallGemmEvent::last_mma));
          pw.push_back(static_cast<double>(ev(q, SmallGemmEvent::producer_waited)) - prev_end);
          s0.push_back(static_cast<double>(ev(q, SmallGemmEvent::first_stage)) - prev_end);
        }
        seen.push_back(static_cast<int>(q[kFields - 1]));
      }
      std::sort(seen.begin(), seen.end());
      sms.push_back(static_cast<double>(std::unique(seen.begin(), seen.end()) - seen.begin()));
      first.push_back(static_cast<double>(f) - prev_end);
      last.push_back(static_cast<double>(la) - prev_end);
      cwait.push_back(median(cw));
      if (is_gemm(role)) {
        pwait.push_back(median(pw));
        stage0.push_back(median(s0));
        lastmma.push_back(static_cast<double>(lm) - prev_end);
      }
      end.push_back(static_cast<double>(ex) - prev_end);
      layer_span[l] += static_cast<double>(ex) - prev_end;
    }
    std::printf("  %-10s %5d %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %5.0f\n", kRoleNames[r], n, us(median(first)),
                us(median(last)), us(median(pwait)), us(median(cwait)), us(median(stage0)), us(median(lastmma)),
                us(median(end)), median(sms));
  }
  std::vector<double> spans(layer_span.begin() + 1, layer_span.end());
  std::printf("  a layer: %.2f us (median over layers of the sum of the kernels' ends)\n", us(median(spans)));
  // Inside each GEMM CTA, from its own clock: phase lengths, median over CTAs and layers.
  std::printf("  %-10s %8s %8s %8s %8s %8s %8s %8s  (us inside a CTA, clock64 / %.3f cycles a ns; median over CTAs)\n",
              "kernel", "init", "w.req", "p.wait", "c.wait", "stage0", "mma", "epilog", cycles_per_ns);
  for (int r = 0; r < kRoles; ++r) {
    const Role role = static_cast<Role>(r);
    if (!is_gemm(role)) continue;
    std::vector<double> init, wreq, pw, cw, s0, mma, epi;
    for (int l = 1; l < c.layers; ++l)
      for (int i = 0; i < ctas_of(role, wide); ++i) {
        const uint64_t* q = rec(l * kRoles + r, i);
        auto d = [&](SmallGemmEvent a, SmallGemmEvent b) {
          return us(static_cast<double>(ev(q, b, true) - ev(q, a, true)) / cycles_per_ns);
        };
        init.push_back(d(SmallGemmEvent::entry, SmallGemmEvent::initialized));
        wreq.push_back(d(SmallGemmEvent::initialized, SmallGemmEvent::weights_requested));
        pw.push_back(d(SmallGemmEvent::weights_requested, SmallGemmEvent::producer_waited));
        cw.push_back(d(SmallGemmEvent::initialized, SmallGemmEvent::consumer_waited));
        s0.push_back(d(SmallGemmEvent::consumer_waited, SmallGemmEvent::first_stage));
        mma.push_back(d(SmallGemmEvent::first_stage, SmallGemmEvent::last_mma));
        epi.push_back(d(SmallGemmEvent::last_mma, SmallGemmEvent::exit));
      }
    std::printf("  %-10s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f\n", kRoleNames[r], median(init), median(wreq),
                median(pw), median(cw), median(s0), median(mma), median(epi));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Chain c;
  std::vector<int> wide_list = {0, 1}, carveout_list = {-1};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--m") c.m = std::atoi(argv[i + 1]);
    else if (a == "--layers") c.layers = std::max(2, std::atoi(argv[i + 1]));
    else if (a == "--wide") wide_list = laya::bench::parse_ints(argv[i + 1], ',');
    else if (a == "--carveout") carveout_list = laya::bench::parse_ints(argv[i + 1], ',');
    else {
      std::fprintf(stderr, "usage: %s [--m 48] [--layers 28] [--wide 0,1] [--carveout -1,100]\n", argv[0]);
      return 2;
    }
  }
  if (c.m < 1 || c.m > 64 || !laya::cuda::small_gemm_supported(c.m, kD, kD, SmallGemmForm::plain)) {
    std::fprintf(stderr, "the small GEMM does not run here (sm_90a) or --m is outside 1..64\n");
    return 1;
  }
  uint64_t* probe = device_zeros<uint64_t>(4);
  timer_probe<<<1, 1>>>(probe);
  uint64_t p[4];
  check(cudaMemcpy(p, probe, sizeof(p), cudaMemcpyDeviceToHost), "probe");
  const double cycles_per_ns = static_cast<double>(p[2]) / static_cast<double>(p[3]);
  std::printf("globaltimer: smallest step %llu ns, mean step %llu ns; SM clock %.3f GHz\n",
              static_cast<unsigned long long>(p[0]), static_cast<unsigned long long>(p[1]), cycles_per_ns);

  c.wqkv = laya::bench::pattern_copies(kQkv, kD, c.layers);
  c.wo = laya::bench::pattern_copies(kD, kD, c.layers);
  c.wi = laya::bench::pattern_copies(2 * kInter, kD, c.layers);
  c.wo2 = laya::bench::pattern_copies(kD, kInter, c.layers);
  c.x = device_zeros<__nv_bfloat16>(static_cast<size_t>(c.m) * kD);
  c.qkv = device_zeros<__nv_bfloat16>(static_cast<size_t>(c.m) * kQkv);
  c.attn = device_zeros<__nv_bfloat16>(static_cast<size_t>(c.m) * kD);
  c.o = device_zeros<__nv_bfloat16>(static_cast<size_t>(c.m) * kD);
  c.h = device_zeros<__nv_bfloat16>(static_cast<size_t>(c.m) * kD);
  c.g = device_zeros<__nv_bfloat16>(static_cast<size_t>(c.m) * kInter);
  c.seed = static_cast<__nv_bfloat16*>(laya::bench::pattern_copies(c.m, kInter, 1));
  c.parts = device_zeros<float>(static_cast<size_t>(kSplits) * c.m * kD);
  c.records = device_zeros<uint64_t>(static_cast<size_t>(c.launches()) * kMaxCtas * kFields);
  check(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking), "stream");

  std::printf("chain: %d layers x (ln, QKV, attn, Wo, ln2, Wi, Wo2) at m = %d, programmatic edges\n", c.layers, c.m);
  for (const int carveout : carveout_list) {
    c.carveout = carveout;
    for (const int wide : wide_list) {
      double ms[2] = {0, 0};
      for (const bool timeline : {false, true}) {
        cudaGraph_t g = nullptr;
        check(cudaStreamBeginCapture(c.stream, cudaStreamCaptureModeThreadLocal), "capture");
        c.record(wide != 0, timeline);
        check(cudaStreamEndCapture(c.stream, &g), "end capture");
        ms[timeline ? 1 : 0] = laya::bench::graph_median_ms(c.stream, g);
        if (timeline) {
          cudaGraphExec_t exec = nullptr;
          check(cudaGraphInstantiate(&exec, g, 0), "instantiate");
          check(cudaMemset(c.records, 0, static_cast<size_t>(c.launches()) * kMaxCtas * kFields * 8), "clear");
          check(cudaGraphLaunch(exec, c.stream), "replay");
          check(cudaStreamSynchronize(c.stream), "sync");
          std::vector<uint64_t> all(static_cast<size_t>(c.launches()) * kMaxCtas * kFields);
          check(cudaMemcpy(all.data(), c.records, all.size() * 8, cudaMemcpyDeviceToHost), "records");
          std::printf("%s layout, carveout %d: graph %.3f ms plain, %.3f ms instrumented (%.2f / %.2f us a layer)\n",
                      wide != 0 ? "wide" : "narrow", carveout, ms[0], ms[1],
                      1000 * ms[0] / c.layers, 1000 * ms[1] / c.layers);
          report(all, c, wide != 0, cycles_per_ns);
          cudaGraphExecDestroy(exec);
        }
        cudaGraphDestroy(g);
      }
    }
  }
  return 0;
}
