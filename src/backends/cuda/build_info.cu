#include "backends/cuda/build_info.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <fmt/format.h>

#include <string_view>

namespace laya::cuda {

namespace {
__global__ void probe_kernel(int* p) {
  if (p != nullptr) *p = 1;
}
}  // namespace

std::string compiled_architectures() {
  // LAYA_CUDA_ARCHS is the CMake list joined with commas, e.g. "80-real,90a-real".
  std::string_view list = LAYA_CUDA_ARCHS;
  std::string out;
  while (!list.empty()) {
    const size_t semi = list.find(',');
    std::string_view item = list.substr(0, semi);
    const size_t dash = item.find('-');
    if (!out.empty()) out += ", ";
    out += "sm_" + std::string(item.substr(0, dash));
    list = semi == std::string_view::npos ? std::string_view{} : list.substr(semi + 1);
  }
  return out;
}

bool kernels_runnable_on_current_device(std::string* why) {
  cudaFuncAttributes attr{};
  const cudaError_t err = cudaFuncGetAttributes(&attr, probe_kernel);
  if (err != cudaSuccess) {
    if (why != nullptr) *why = fmt::format("{} ({})", cudaGetErrorName(err), cudaGetErrorString(err));
    cudaGetLastError();
    return false;
  }
  return true;
}

std::string build_description() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  const size_t lt = cublasLtGetVersion();
  std::string out = fmt::format("cuda: kernels for {}; CUDA runtime {}.{} (static), driver API {}\n",
                                compiled_architectures(), runtime / 1000, runtime % 1000 / 10,
                                driver == 0 ? std::string("none") : fmt::format("{}.{}", driver / 1000, driver % 1000 / 10));
  out += fmt::format("cublasLt: {}.{}.{} (built against {}.{}.{})\n", lt / 10000, lt / 100 % 100, lt % 100,
                     CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH);
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    out += fmt::format("gpus: none usable ({})\n", cudaGetErrorString(err));
    cudaGetLastError();
    return out;
  }
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    out += fmt::format("gpu {}: {} (sm_{}{}, {} SMs, {} MiB)\n", i, prop.name, prop.major, prop.minor,
                       prop.multiProcessorCount, prop.totalGlobalMem >> 20);
  }
  return out;
}

}  // namespace laya::cuda
