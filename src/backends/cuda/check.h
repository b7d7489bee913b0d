// Error checks for CUDA runtime and cuBLASLt calls: a failure throws laya::Error(internal) with the
// file, line, the call and the library's message. Never aborts.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "laya/errors.h"

namespace laya::cuda::detail {
[[noreturn]] void throw_cuda(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t st, const char* call, const char* file, int line);
}  // namespace laya::cuda::detail

#define LAYA_CUDA_CHECK(call)                                                              \
  do {                                                                                     \
    cudaError_t laya_err_ = (call);                                                        \
    if (laya_err_ != cudaSuccess) ::laya::cuda::detail::throw_cuda(laya_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define LAYA_CUBLAS_CHECK(call)                                                            \
  do {                                                                                     \
    cublasStatus_t laya_st_ = (call);                                                      \
    if (laya_st_ != CUBLAS_STATUS_SUCCESS) ::laya::cuda::detail::throw_cublas(laya_st_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: the launch configuration error, if any.
#define LAYA_CUDA_CHECK_LAUNCH() LAYA_CUDA_CHECK(cudaGetLastError())
