// laya_bench_gemm: how fast is each cuBLASLt heuristic candidate for the engine's GEMM shapes when
// it runs the way the engine runs it — inside a captured CUDA Graph, launches back to back, weights
// streamed from DRAM (each launch reads another of 28 weight copies, as the 28 encoder layers do,
// so the weights do not sit in L2)? The engine takes candidate #0 below 4096 rows because timing
// single eager launches there picked kernels that were slower inside the graph (docs/benchmarks/
// cuda.md, session 3); this program measures in the graph instead. Prints a table, asserts nothing.
//
// --sustain MS replays each candidate's graph for MS milliseconds before timing it, and then reports
// the median of the timed replays: at 8192 rows the engine's forward runs at the H200's 700 W power
// cap (SM clock 1.5-1.65 GHz instead of 1.98, docs/benchmarks/cuda.md item 51), where a candidate's
// rank may differ from its rank in a short burst. --residual times the engine's residual form
// (fp32 output accumulated into with beta = 1, Gemm::run_residual) instead of a bf16 output.
//
// usage: laya_bench_gemm [--m 48,256,512,1856,8192] [--nk 3072x1024,1024x1024,5248x1024,1024x2624]
//                        [--candidates 8] [--reps 5] [--sustain MS] [--residual 1]
#include "bench_common.h"

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using laya::bench::check;
using laya::bench::config;
using laya::bench::parse_ints;
using laya::bench::replay_ms;

constexpr int kLayers = 28;  // weight copies: one per encoder layer
constexpr int kLaunches = 56;  // GEMM launches per captured graph

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> ms{48, 256, 512, 1856, 8192};
  std::vector<laya::bench::GemmShape> nks{{3072, 1024}, {1024, 1024}, {5248, 1024}, {1024, 2624}};
  int candidates = 8, reps = 5, sustain_ms = 0;
  bool residual = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i], val = argv[i + 1];
    if (opt == "--m") {
      ms = parse_ints(val, ',');
    } else if (opt == "--nk") {
      nks = laya::bench::parse_shapes(val);  // a pS suffix is ignored here
    } else if (opt == "--candidates") {
      candidates = std::clamp(std::atoi(val.c_str()), 1, 32);
    } else if (opt == "--reps") {
      reps = std::max(1, std::atoi(val.c_str()));
    } else if (opt == "--sustain") {
      sustain_ms = std::max(0, std::atoi(val.c_str()));
    } else if (opt == "--residual") {
      residual = std::atoi(val.c_str()) != 0;
    } else {
      std::fprintf(stderr, "unknown option %s\n", opt.c_str());
      return 2;
    }
  }
  cublasLtHandle_t lt = nullptr;
  check(cublasLtCreate(&lt), "cublasLtCreate");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  const size_t ws_bytes = 32u << 20;  // the engine's GEMM workspace size order
  void* ws = nullptr;
  check(cudaMalloc(&ws, ws_bytes), "workspace");
  cudaEvent_t t0 = nullptr, t1 = nullptr;
  check(cudaEventCreate(&t0), "event");
  check(cudaEventCreate(&t1), "event");
  std::printf("cuBLASLt %zu; us per GEMM inside a graph of %d launches (weights rotated over %d copies), %s of %d%s\n",
              cublasLtGetVersion(), kLaunches, kLayers, sustain_ms > 0 ? "median" : "best", reps,
              residual ? "; fp32 output accumulated (residual form)" : "");
  if (sustain_ms > 0) std::printf("each candidate's graph replayed for %d ms before it is timed\n", sustain_ms);
  std::printf("%6s %5s %5s  %3s %5s %6s %6s %5s %8s %8s\n", "M", "N", "K", "#", "tile", "stages", "splitK", "redu",
              "us", "vs #0");
  for (const auto& [n, k, splits_ignored] : nks) {
    const int max_m = *std::max_element(ms.begin(), ms.end());
    const size_t w_bytes = static_cast<size_t>(n) * k * 2;
    void* w = laya::bench::pattern_copies(n, k, kLayers);
    void* in = laya::bench::pattern_copies(max_m, k, 1);
    void* out = nullptr;
    check(cudaMalloc(&out, static_cast<size_t>(max_m) * n * (residual ? 4 : 2)), "out");
    check(cudaMemset(out, 0, static_cast<size_t>(max_m) * n * (residual ? 4 : 2)), "out zero");
    for (int m : ms) {
      // The engine's layout: column-major C^T[N, M] = W[N, K]^T-view x in^T (gemm.cpp).
      cublasLtMatmulDesc_t op = nullptr;
      check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "desc");
      const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta));
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb));
      cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
      check(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, k, n, k), "la");
      check(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, k, m, k), "lb");
      check(cublasLtMatrixLayoutCreate(&lc, residual ? CUDA_R_32F : CUDA_R_16BF, n, m, n), "lc");
      cublasLtMatmulPreference_t pref = nullptr;
      check(cublasLtMatmulPreferenceCreate(&pref), "pref");
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof(ws_bytes));
      std::vector<cublasLtMatmulHeuristicResult_t> res(static_cast<size_t>(candidates));
      int found = 0;
      check(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, candidates, res.data(), &found), "heuristic");
      double first_us = 0, best_us = 1e30;
      int best = -1;
      for (int c = 0; c < found; ++c) {
        if (res[static_cast<size_t>(c)].state != CUBLAS_STATUS_SUCCESS) continue;
        const float alpha = 1.f, beta = residual ? 1.f : 0.f;
        const cublasLtMatmulAlgo_t* algo = &res[static_cast<size_t>(c)].algo;
        auto launch = [&](int i) {
          return cublasLtMatmul(lt, op, &alpha, static_cast<char*>(w) + (i % kLayers) * w_bytes, la, in, lb, &beta,
                                out, lc, out, lc, algo, ws, ws_bytes, stream);
        };
        if (launch(0) != CUBLAS_STATUS_SUCCESS) continue;  // eager once: loads the kernel
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "capture");
        bool ok = true;
        for (int i = 0; i < kLaunches; ++i) ok = ok && launch(i) == CUBLAS_STATUS_SUCCESS;
        check(cudaStreamEndCapture(stream, &graph), "end capture");
        if (!ok || cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) {
          cudaGetLastError();
          if (graph != nullptr) cudaGraphDestroy(graph);
          continue;
        }
        check(cudaGraphLaunch(exec, stream), "warm");
        if (sustain_ms > 0) {  // replay until the clock has settled under the power cap
          check(cudaEventRecord(t0, stream), "record");
          for (float spent = 0; spent < static_cast<float>(sustain_ms);) {
            for (int r = 0; r < 8; ++r) check(cudaGraphLaunch(exec, stream), "sustain");
            check(cudaEventRecord(t1, stream), "record");
            check(cudaEventSynchronize(t1), "sync");
            check(cudaEventElapsedTime(&spent, t0, t1), "elapsed");
          }
        }
        const std::vector<float> times = replay_ms(stream, exec, reps);
        const float best_ms = sustain_ms > 0 ? times[times.size() / 2] : times.front();
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        const double us = 1000.0 * best_ms / kLaunches;
        if (c == 0) first_us = us;
        if (us < best_us) best_us = us, best = c;
        std::printf("%6d %5d %5d  %3d %5d %6d %6d %5d %8.2f %8.3f\n", m, n, k, c, config(*algo, CUBLASLT_ALGO_CONFIG_TILE_ID),
                    config(*algo, CUBLASLT_ALGO_CONFIG_STAGES_ID), config(*algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                    config(*algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME), us, first_us > 0 ? us / first_us : 0.0);
      }
      std::printf("best M=%d N=%d K=%d: #%d %.2f us (#0 %.2f us, %.3f)\n", m, n, k, best, best_us, first_us,
                  first_us > 0 ? best_us / first_us : 0.0);
      cublasLtMatmulPreferenceDestroy(pref);
      cublasLtMatrixLayoutDestroy(la);
      cublasLtMatrixLayoutDestroy(lb);
      cublasLtMatrixLayoutDestroy(lc);
      cublasLtMatmulDescDestroy(op);
    }
    cudaFree(w);
    cudaFree(in);
    cudaFree(out);
  }
  return 0;
}
