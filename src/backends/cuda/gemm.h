// 16-bit GEMMs through cuBLASLt (T = __nv_bfloat16 or __half, the precision mode's type):
// out[M,N] = act(in[M,K] . W[N,K]^T + bias[N]), fp32 accumulation, one rounding of
// (accumulator + bias) to T — the autocast addmm semantics (run_partials and run_residual keep
// fp32). ReLU commutes with that rounding, so its epilogue is exact; GELU is NOT fused (cuBLASLt's
// epilogue is the tanh form), it runs as a separate kernel on the rounded value.
//
// The algorithm for each (M, N, K, epilogue) is chosen once and then reused, so the same shape
// always runs the same kernel: eager, captured and replayed forwards are bitwise identical. The
// choice is the heuristic's first candidate, or for M >= tune_from_m the fastest of its first 8
// candidates, timed on the shape's first eager call (never inside a capture: the engine runs a new
// bucket eagerly once before capturing it when one of its GEMMs is tuned). Measured on the H200:
// timing pays at 2,560-8,192 rows and picks slower-in-context kernels at <= 2,048
// (docs/benchmarks/cuda.md: session 3, item 131).
// For the GEMMs of a SingleCtaClusterRule (cluster_rule.h) the pick runs with a 1x1x1 thread-block
// cluster where cuBLASLt accepts that (AlgoCheck): at 48-64 rows the heuristic's nvjet kernels come
// with 4x1 / 4x2 clusters, and the same tiles without a cluster are 0.2-0.4 us faster in a graph
// (item 55); the engine's buckets of 769-1,535 tokens gain from it too (item 123), and two of the
// encoder's four GEMM shapes at 129-768 (item 126). The tile and K order stay the pick's, so the
// outputs are bitwise the pick's (kernel test).
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "backends/cuda/cluster_rule.h"
#include "backends/cuda/graph_memsets.h"

namespace laya::cuda {

template <class T>
struct GemmArgs {
  const T* in = nullptr;    // [M, K] row-major
  const T* w = nullptr;     // [N, K] row-major (PyTorch Linear layout)
  const T* bias = nullptr;  // [N] or null
  T* out = nullptr;         // [M, N] row-major
  int32_t m = 0, n = 0, k = 0;
  bool relu = false;
};

class Gemm {
 public:
  static constexpr int32_t kNeverTune = INT32_MAX;
  Gemm(void* workspace, size_t workspace_bytes, int32_t tune_from_m = kNeverTune,
       SingleCtaClusterRule single_cta_cluster = {});
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  template <class T>
  void run(const GemmArgs<T>& a, cudaStream_t stream) {
    static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>);
    const cudaDataType_t t = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
    run_call({a.in, a.w, a.bias, a.out, a.m, a.n, a.k, a.relu, t, t, 1}, stream);
  }
  // Split K without cuBLASLt's separate reduction kernel: out[s] = in[:, Ks s .. Ks (s+1)) .
  // W[:, same]^T in fp32 for s < splits (Ks = k / splits, a multiple of 8), as one strided-batched
  // GEMM; out is [splits, m, n]. The consumer adds the partials in order and rounds once
  // (AddLnParams::add_parts), which is what the reduction kernel would have done.
  template <class T>
  void run_partials(const T* in, const T* w, float* out, int32_t m, int32_t n, int32_t k, int32_t splits,
                    cudaStream_t stream) {
    static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>);
    const cudaDataType_t t = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
    run_call({in, w, nullptr, out, m, n, k, false, t, CUDA_R_32F, splits}, stream);
  }
  // The residual add in the GEMM's epilogue: x[m, n] += in[m, k] . W[n, k]^T in fp32, in place
  // (cuBLASLt beta = 1, fp32 C = D = x). The product is added unrounded — the fp32 sum the
  // reference computes, where the unfused path first rounds the GEMM output to T. `scratch`
  // (m x n floats) receives the candidates' outputs when the shape is timed, so x is only
  // written by the real call.
  template <class T>
  void run_residual(const T* in, const T* w, float* x, float* scratch, int32_t m, int32_t n, int32_t k,
                    cudaStream_t stream) {
    static_assert(std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>);
    const cudaDataType_t t = std::is_same_v<T, __half> ? CUDA_R_16F : CUDA_R_16BF;
    Call c{in, w, nullptr, x, m, n, k, false, t, CUDA_R_32F, 1};
    c.accumulate = true;
    c.scratch = scratch;
    run_call(c, stream);
  }
  // While set, every call made during a stream capture records its nodes there (graph_memsets.h).
  void log_captures(GemmCaptureLog* log) { capture_log_ = log; }
  // Whether a GEMM of `m` rows is timed on its first use.
  bool tunes(int32_t m) const { return m >= tune_from_m_; }
  static std::string version();

 private:
  struct Call {  // a GemmArgs with its element types as data
    const void *in, *w, *bias;
    void* out;
    int32_t m, n, k;
    bool relu;
    cudaDataType_t type, out_type;
    int32_t splits;            // > 1: run_partials
    bool accumulate = false;   // run_residual: out += product (beta = 1)
    float* scratch = nullptr;  // run_residual: where timed candidates write
  };
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };
  void run_call(const Call& a, cudaStream_t stream);
  Plan& plan_for(const Call& a, int epilogue, cudaStream_t stream);
  int fastest(Plan& p, const cublasLtMatmulHeuristicResult_t* results, int found, const Call& a, cudaStream_t stream);

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  int32_t tune_from_m_ = kNeverTune;
  SingleCtaClusterRule single_cta_cluster_;
  GemmCaptureLog* capture_log_ = nullptr;
  std::map<std::tuple<int32_t, int32_t, int32_t, int, int, int, int32_t>, Plan> plans_;  // (M, N, K, epilogue, types, splits)
};

}  // namespace laya::cuda
