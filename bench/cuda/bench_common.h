// Helpers shared by the CUDA benchmarks (laya_bench_gemm, laya_bench_gemm_pdl, laya_bench_clock_gap,
// laya_bench_grid_barrier, laya_bench_icache, laya_bench_small_gemm_timeline, laya_bench_wgmma_loop):
// exit on a failed call, parse integer lists, GEMM shapes and the chain probes' options, time a
// graph's replays, read an algorithm's configuration attribute, fill bf16 operands with a fixed
// pattern.
#pragma once

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace laya::bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}
inline void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(s));
    std::exit(1);
  }
}

inline std::vector<int> parse_ints(const std::string& s, char sep) {
  std::vector<int> v;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t end = std::min(s.find(sep, at), s.size());
    if (end > at) v.push_back(std::atoi(s.substr(at, end - at).c_str()));
    at = end + 1;
  }
  return v;
}

// The options of the chain probes (laya_bench_grid_barrier, laya_bench_icache): --ctas LIST
// --threads N --launches N; exits 2 on any other option.
struct ChainOptions {
  std::vector<int> ctas;
  int threads = 128, launches = 112;
};
inline ChainOptions parse_chain_options(int argc, char** argv, std::vector<int> default_ctas) {
  ChainOptions o;
  o.ctas = std::move(default_ctas);
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--ctas") {
      o.ctas = parse_ints(val, ',');
    } else if (opt == "--threads") {
      o.threads = std::atoi(val.c_str());
    } else if (opt == "--launches") {
      o.launches = std::atoi(val.c_str());
    } else {
      std::fprintf(stderr, "unknown option %s\n", opt.c_str());
      std::exit(2);
    }
  }
  return o;
}

// `reps` timed replays of an instantiated graph on `stream` (CUDA events around each), in ms,
// sorted.
inline std::vector<float> replay_ms(cudaStream_t stream, cudaGraphExec_t exec, int reps) {
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  check(cudaEventCreate(&t0), "event");
  check(cudaEventCreate(&t1), "event");
  std::vector<float> times;
  for (int r = 0; r < reps; ++r) {
    check(cudaEventRecord(t0, stream), "record");
    check(cudaGraphLaunch(exec, stream), "launch");
    check(cudaEventRecord(t1, stream), "record");
    check(cudaEventSynchronize(t1), "sync");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, t0, t1), "elapsed");
    times.push_back(ms);
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  std::sort(times.begin(), times.end());
  return times;
}

// Median of 5 replays of a graph on `stream` after one warm-up replay, in ms; < 0 when it does not
// instantiate.
inline constexpr int kGraphMedianReplays = 1 + 5;  // every replay graph_median_ms runs
inline double graph_median_ms(cudaStream_t stream, cudaGraph_t g) {
  cudaGraphExec_t exec = nullptr;
  if (cudaGraphInstantiate(&exec, g, 0) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  check(cudaGraphLaunch(exec, stream), "warm");
  const std::vector<float> times = replay_ms(stream, exec, kGraphMedianReplays - 1);
  cudaGraphExecDestroy(exec);
  return times[2];
}

// "NxK[pS],..." (S: K split into S partials, the engine's MLP-output form at small M; 1 without).
struct GemmShape {
  int n = 0, k = 0, splits = 1;
};
inline std::vector<GemmShape> parse_shapes(const std::string& s) {
  std::vector<GemmShape> v;
  for (size_t at = 0; at <= s.size();) {
    const size_t end = std::min(s.find(',', at), s.size());
    const std::string item = s.substr(at, end - at);
    const size_t p = item.find('p');
    const auto nk = parse_ints(item.substr(0, p), 'x');
    if (nk.size() == 2) v.push_back({nk[0], nk[1], p == std::string::npos ? 1 : std::max(1, std::atoi(item.c_str() + p + 1))});
    at = end + 1;
  }
  return v;
}

// A device buffer of `copies` copies of a rows x k bf16 matrix with a fixed pattern in [-0.5, 0.5)
// (the benchmarks rotate over 28 weight copies, as the 28 encoder layers stream theirs from DRAM).
inline void* pattern_copies(int rows, int k, int copies) {
  std::vector<__nv_bfloat16> host(static_cast<size_t>(rows) * k);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = __float2bfloat16(static_cast<float>((i * 2654435761u) % 97) / 97.f - 0.5f);
  const size_t bytes = host.size() * 2;
  void* d = nullptr;
  check(cudaMalloc(&d, bytes * static_cast<size_t>(copies)), "pattern buffer");
  for (int c = 0; c < copies; ++c)
    check(cudaMemcpy(static_cast<char*>(d) + c * bytes, host.data(), bytes, cudaMemcpyHostToDevice), "pattern copy");
  return d;
}

// One configuration attribute of an algorithm (0 where unset; some attributes are 16 bits wide,
// so the value starts at 0 rather than -1).
inline int config(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  int32_t v = 0;
  size_t written = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof(v), &written);
  return v;
}

#ifdef __CUDACC__
// One launch of a chain probe's chain on `s`: `ctas` CTAs of `threads`, with a programmatic edge or a plain one.
template <typename... Params, typename... Args>
inline void launch_link(void (*kernel)(Params...), cudaStream_t s, int ctas, int threads, bool programmatic,
                        Args... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(static_cast<unsigned>(ctas));
  cfg.blockDim = dim3(static_cast<unsigned>(threads));
  cfg.stream = s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = programmatic ? 1 : 0;
  check(cudaLaunchKernelEx(&cfg, kernel, args...), "launch");
}
#endif

}  // namespace laya::bench
