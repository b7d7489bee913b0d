#include "backends/cuda/gemm.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "backends/cuda/check.h"
#include "backends/cuda/pdl.h"

namespace laya::cuda {

Gemm::Gemm(void* workspace, size_t workspace_bytes, int32_t tune_from_m, SingleCtaClusterRule single_cta_cluster)
    : workspace_(workspace),
      workspace_bytes_(workspace_bytes),
      tune_from_m_(tune_from_m),
      single_cta_cluster_(std::move(single_cta_cluster)) {
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

Gemm::Plan& Gemm::plan_for(const Call& a, int epilogue, cudaStream_t stream) {
  const int32_t m = a.m, n = a.n, k = a.k;
  const auto key = std::make_tuple(m, n, k, epilogue, static_cast<int>(a.type), static_cast<int>(a.out_type), a.splits);
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
    const cudaDataType_t bt = a.type;
    LAYA_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof(bt)));
  }
  // Partials: batch s reads rows [Ks s, Ks (s+1)) of both K-major operands (same leading dimension
  // k, batch offset Ks) and writes its own [M, N] fp32 slice.
  const int32_t ks = k / a.splits;
  LAYA_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.la, a.type, ks, n, k));
  LAYA_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.lb, a.type, ks, m, k));
  LAYA_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.lc, a.out_type, n, m, n));
  if (a.splits > 1) {
    const int32_t count = a.splits;
    const int64_t step_in = ks, step_out = static_cast<int64_t>(m) * n;
    for (auto [layout, step] : {std::pair{p.la, step_in}, std::pair{p.lb, step_in}, std::pair{p.lc, step_out}}) {
      LAYA_CUBLAS_CHECK(
          cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
      LAYA_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &step,
                                                         sizeof(step)));
    }
  }
  cublasLtMatmulPreference_t pref = nullptr;
  LAYA_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  LAYA_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                         &workspace_bytes_, sizeof(workspace_bytes_)));
  // Experiment knobs (read once per plan; the choice is cached with the plan, so every mode still
  // runs the same kernel for a shape): LAYA_CUDA_GEMM_NO_SPLITK_M=M0 asks the heuristic, for
  // M <= M0, for algorithms without a split-K reduction (reduction scheme NONE: no separate
  // splitKreduce kernel; the in-place schemes would add partial sums in the output type, which
  // the precision policy excludes); LAYA_CUDA_GEMM_LOG=1 prints each plan's choice on stderr.
  const char* no_split = std::getenv("LAYA_CUDA_GEMM_NO_SPLITK_M");
  if (no_split != nullptr && m <= std::atoi(no_split)) {
    const uint32_t none = CUBLASLT_REDUCTION_SCHEME_NONE;  // refused: the default preference stays
    (void)cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &none, sizeof(none));
  }
  constexpr int kCandidates = 16;
  cublasLtMatmulHeuristicResult_t results[kCandidates]{};
  int found = 0;
  const cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(handle_, p.op, p.la, p.lb, p.lc, p.lc, pref, kCandidates, results, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0) {
    cublasLtMatrixLayoutDestroy(p.la);
    cublasLtMatrixLayoutDestroy(p.lb);
    cublasLtMatrixLayoutDestroy(p.lc);
    cublasLtMatmulDescDestroy(p.op);
    LAYA_FAIL(ErrorKind::unavailable, "cuBLASLt offers no algorithm for the GEMM M={} N={} K={} (status {})", m, n, k,
              static_cast<int>(st));
  }
  auto split_k = [](const cublasLtMatmulAlgo_t& algo) {
    int32_t v = -1;
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &v, sizeof(v), &written) !=
        CUBLAS_STATUS_SUCCESS)
      return -1;
    return static_cast<int>(v);
  };
  int pick = 0;
  if (tunes(m) && found > 1) pick = fastest(p, results, found, a, stream);
  p.algo = results[pick].algo;
  bool single_cta_cluster = false;
  if (single_cta_cluster_.contains(m, n, k)) {
    cublasLtMatmulAlgo_t algo = p.algo;
    const uint16_t one = CUBLASLT_CLUSTER_SHAPE_1x1x1;
    cublasLtMatmulHeuristicResult_t checked{};
    if (cublasLtMatmulAlgoConfigSetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &one, sizeof(one)) ==
            CUBLAS_STATUS_SUCCESS &&
        cublasLtMatmulAlgoCheck(handle_, p.op, p.la, p.lb, p.lc, p.lc, &algo, &checked) == CUBLAS_STATUS_SUCCESS &&
        checked.workspaceSize <= workspace_bytes_) {
      p.algo = algo;
      single_cta_cluster = true;
    }
  }
  if (std::getenv("LAYA_CUDA_GEMM_LOG") != nullptr) {
    std::string splits_k;
    for (int i = 0; i < found; ++i) splits_k += fmt::format("{}{}", i ? "," : "", split_k(results[i].algo));
    std::fprintf(stderr, "gemm plan M=%d N=%d K=%d epi=%d: %d candidates (split-K: %s), picked #%d%s%s\n", m, n, k,
                 epilogue, found, splits_k.c_str(), pick, tunes(m) ? " (timed)" : "",
                 single_cta_cluster ? " with a 1x1x1 cluster" : "");
  }
  return plans_.emplace(key, p).first->second;
}

// Times the heuristic's first candidates on the call's own buffers (the real call then overwrites
// the output) and returns the fastest; 0 where the stream is being captured or timing fails.
int Gemm::fastest(Plan& p, const cublasLtMatmulHeuristicResult_t* results, int found, const Call& a,
                  cudaStream_t stream) {
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone) {
    cudaGetLastError();
    return 0;
  }
  constexpr int kTimed = 8, kWarm = 2, kReps = 5;
  if (a.bias != nullptr)
    LAYA_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &a.bias, sizeof(a.bias)));
  cudaEvent_t start = nullptr, stop = nullptr;
  LAYA_CUDA_CHECK(cudaEventCreate(&start));
  LAYA_CUDA_CHECK(cudaEventCreate(&stop));
  // An accumulating call reads its output as C: the candidates write to the scratch instead.
  void* timed_out = a.accumulate ? static_cast<void*>(a.scratch) : a.out;
  const float alpha = 1.f, beta = a.accumulate ? 1.f : 0.f;
  int best = 0;
  float best_ms = 1e30f;
  for (int i = 0; i < std::min(found, kTimed); ++i) {
    if (results[i].state != CUBLAS_STATUS_SUCCESS) continue;
    auto once = [&] {
      return cublasLtMatmul(handle_, p.op, &alpha, a.w, p.la, a.in, p.lb, &beta, a.out, p.lc, timed_out, p.lc,
                            &results[i].algo, workspace_, workspace_bytes_, stream);
    };
    bool ok = true;
    for (int r = 0; r < kWarm && ok; ++r) ok = once() == CUBLAS_STATUS_SUCCESS;
    ok = ok && cudaEventRecord(start, stream) == cudaSuccess;
    for (int r = 0; r < kReps && ok; ++r) ok = once() == CUBLAS_STATUS_SUCCESS;
    ok = ok && cudaEventRecord(stop, stream) == cudaSuccess && cudaEventSynchronize(stop) == cudaSuccess;
    float ms = 0.f;
    ok = ok && cudaEventElapsedTime(&ms, start, stop) == cudaSuccess;
    if (ok && ms < best_ms) {
      best = i;
      best_ms = ms;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  LAYA_CUDA_CHECK(cudaGetLastError());
  return best;
}

void Gemm::run_call(const Call& a, cudaStream_t stream) {
  LAYA_REQUIRE(a.in && a.w && a.out && a.m >= 0 && a.n > 0 && a.k > 0 && (!a.relu || a.bias), ErrorKind::internal,
               "gemm: bad parameters (M={} N={} K={})", a.m, a.n, a.k);
  LAYA_REQUIRE(a.splits == 1 || (a.splits > 1 && a.k % a.splits == 0 && (a.k / a.splits) % 8 == 0 && !a.bias),
               ErrorKind::internal, "gemm: K={} cannot be split in {} partials (multiples of 8, no bias)", a.k,
               a.splits);
  LAYA_REQUIRE(!a.accumulate || (a.scratch && a.splits == 1 && !a.bias && a.out_type == CUDA_R_32F),
               ErrorKind::internal, "gemm: a residual GEMM needs fp32 output, a scratch buffer and no bias/split");
  if (a.m == 0) return;
  const int epi = a.bias == nullptr ? CUBLASLT_EPILOGUE_DEFAULT
                                    : (a.relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS);
  Plan& p = plan_for(a, epi, stream);
  if (a.bias != nullptr)
    LAYA_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &a.bias, sizeof(a.bias)));
  const float alpha = 1.f, beta = a.accumulate ? 1.f : 0.f;
  pdl_last_launch_own() = false;  // the own kernel after this one launches with a plain edge (pdl.h)
  CaptureCallLog call_log(capture_log_, stream);
  LAYA_CUBLAS_CHECK(cublasLtMatmul(handle_, p.op, &alpha, a.w, p.la, a.in, p.lb, &beta, a.out, p.lc, a.out, p.lc,
                                   &p.algo, workspace_, workspace_bytes_, stream));
  call_log.finish();
}

}  // namespace laya::cuda
