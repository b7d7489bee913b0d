#include "backends/cuda/check.h"

#include <fmt/format.h>

namespace laya::cuda::detail {

void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  throw Error(ErrorKind::internal, fmt::format("CUDA error {} ({}) in {} at {}:{}", cudaGetErrorName(err),
                                               cudaGetErrorString(err), call, file, line));
}

void throw_cublas(cublasStatus_t st, const char* call, const char* file, int line) {
  throw Error(ErrorKind::internal,
              fmt::format("cuBLASLt error {} in {} at {}:{}", static_cast<int>(st), call, file, line));
}

}  // namespace laya::cuda::detail
