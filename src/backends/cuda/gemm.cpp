#include "backends/cuda/gemm.h"

#include <fmt/format.h>

#include "backends/cuda/check.h"

namespace laya::cuda {

Gemm::Gemm(void* workspace, size_t workspace_bytes) : workspace_(workspace), workspace_bytes_(workspace_bytes) {
  LAYA_CUBLAS_CHECK(cublasLtCreate(&handle_));
}

Gemm::~Gemm() {
  for (auto& [key, p] : plans_) {
    cublasLtMatrixLayoutDestroy(p.la);
    cublasLtMatrixLayoutDestroy(p.lb);
    cublasLtMatrixLayoutDestroy(p.lc);
    cublasLtMatmulDescDestroy(p.op);
  }
  if (handle_ != nullptr) cublasLtDestroy(handle_);
}

std::string Gemm::version() {
  const size_t v = cublasLtGetVersion();
  return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
}

Gemm::Plan& Gemm::plan_for(int32_t m, int32_t n, int32_t k, int epilogue) {
  const auto key = std::make_tuple(m, n, k, epilogue);
  auto it = plans_.find(key);
  if (it != plans_.end()) return it->second;
  // Column-major view: C^T[N, M] = W[N, K] (row-major = col-major [K, N], transposed) x in^T.
  Plan p;
  LAYA_CUBLAS_CHECK(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  LAYA_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof(ta)));
  LAYA_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof(tb)));
  const auto epi = static_cast<cublasLtEpilogue_t>(epilogue);
  LAYA_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
  if (epi == CUBLASLT_EPILOGUE_BIAS || epi == CUBLASLT_EPILOGUE_RELU_BIAS) {
    const cudaDataType_t bt = CUDA_R_16BF;
    LAYA_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)));
  }
  LAYA_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.la, CUDA_R_16BF, k, n, k));
  LAYA_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.lb, CUDA_R_16BF, k, m, k));
  LAYA_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.lc, CUDA_R_16BF, n, m, n));
  cublasLtMatmulPreference_t pref = nullptr;
  LAYA_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  LAYA_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                         &workspace_bytes_, sizeof(workspace_bytes_)));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(handle_, p.op, p.la, p.lb, p.lc, p.lc, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
    cublasLtMatrixLayoutDestroy(p.la);
    cublasLtMatrixLayoutDestroy(p.lb);
    cublasLtMatrixLayoutDestroy(p.lc);
    cublasLtMatmulDescDestroy(p.op);
    LAYA_FAIL(ErrorKind::internal, "cuBLASLt has no algorithm for bf16 GEMM M={} N={} K={} (status {})", m, n, k,
              static_cast<int>(st));
  }
  p.algo = result.algo;
  return plans_.emplace(key, p).first->second;
}

void Gemm::run(const GemmArgs& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.in && a.w && a.out && a.m >= 0 && a.n > 0 && a.k > 0 && (!a.relu || a.bias), ErrorKind::internal,
               "gemm: bad parameters (M={} N={} K={})", a.m, a.n, a.k);
  if (a.m == 0) return;
  const int epi = a.bias == nullptr ? CUBLASLT_EPILOGUE_DEFAULT
                                    : (a.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS);
  Plan& p = plan_for(a.m, a.n, a.k, epi);
  if (a.bias != nullptr)
    LAYA_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &a.bias, sizeof(a.bias)));
  const float alpha = 1.f, beta = 0.f;
  LAYA_CUBLAS_CHECK(cublasLtMatmul(handle_, p.op, &alpha, a.w, p.la, a.in, p.lb, &beta, a.out, p.lc, a.out, p.lc,
                                   &p.algo, workspace_, workspace_bytes_, stream));
}

}  // namespace laya::cuda
