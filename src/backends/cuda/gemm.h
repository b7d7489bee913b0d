// bf16 GEMMs through cuBLASLt: out[M,N] = act(in[M,K] . W[N,K]^T + bias[N]), fp32 accumulation,
// one bf16 rounding of (accumulator + bias) — the autocast addmm semantics. ReLU commutes with that
// rounding, so its epilogue is exact; GELU is NOT fused (cuBLASLt's epilogue is the tanh form), it
// runs as a separate kernel on the rounded value.
//
// The algorithm for each (M, N, K, epilogue) is chosen once and then reused, so the same shape
// always runs the same kernel: eager, captured and replayed forwards are bitwise identical. The
// choice is the heuristic's first candidate, or for M >= tune_from_m the fastest of its first 8
// candidates, timed on the shape's first eager call (never inside a capture: the engine runs a new
// bucket eagerly once before capturing it when one of its GEMMs is tuned). Measured on the H200:
// timing pays at 8192 rows and picks slower-in-context kernels at <= 1920 (docs/benchmarks/cuda.md).
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

namespace laya::cuda {

struct GemmArgs {
  const __nv_bfloat16* in = nullptr;    // [M, K] row-major
  const __nv_bfloat16* w = nullptr;     // [N, K] row-major (PyTorch Linear layout)
  const __nv_bfloat16* bias = nullptr;  // [N] or null
  __nv_bfloat16* out = nullptr;         // [M, N] row-major
  int32_t m = 0, n = 0, k = 0;
  bool relu = false;
};

class Gemm {
 public:
  static constexpr int32_t kNeverTune = INT32_MAX;
  Gemm(void* workspace, size_t workspace_bytes, int32_t tune_from_m = kNeverTune);
  ~Gemm();
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  void run(const GemmArgs& a, cudaStream_t stream);
  // Whether a GEMM of `m` rows is timed on its first use.
  bool tunes(int32_t m) const { return m >= tune_from_m_; }
  static std::string version();

 private:
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulAlgo_t algo{};
  };
  Plan& plan_for(const GemmArgs& a, int epilogue, cudaStream_t stream);
  int fastest(Plan& p, const cublasLtMatmulHeuristicResult_t* results, int found, const GemmArgs& a,
              cudaStream_t stream);

  cublasLtHandle_t handle_ = nullptr;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  int32_t tune_from_m_ = kNeverTune;
  std::map<std::tuple<int32_t, int32_t, int32_t, int>, Plan> plans_;
};

}  // namespace laya::cuda
