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

// Its static shared memory is 16 bytes per unit of __CUDA_ARCH__ / 10 of the image it is compiled
// into, plus 16,000 bytes in the sm_90a image (current_kernel_image decodes it). Never launched.
constexpr int kSm90aUnits = 1000;
__global__ void image_probe_kernel(int* p) {
#if defined(__CUDA_ARCH__)
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  constexpr int kUnits = __CUDA_ARCH__ / 10 + kSm90aUnits;
#else
  constexpr int kUnits = __CUDA_ARCH__ / 10;
#endif
  __shared__ int4 units[kUnits];  // used, so that its size is kept
  units[threadIdx.x % kUnits] = make_int4(p[threadIdx.x], 0, 0, 0);
  __syncthreads();
  p[threadIdx.x] = units[(threadIdx.x + 1) % kUnits].x;
#endif
}
}  // namespace

KernelImage current_kernel_image() {
  cudaFuncAttributes attr{};
  KernelImage image;
  if (cudaFuncGetAttributes(&attr, image_probe_kernel) != cudaSuccess) {
    cudaGetLastError();
    return image;
  }
  const int units = static_cast<int>(attr.sharedSizeBytes / sizeof(int4));
  image.arch = units % kSm90aUnits;
  image.sm90a = units >= kSm90aUnits;
  image.binary = attr.binaryVersion;
  return image;
}

bool kernel_image_waits_for_pdl() {
  static const bool waits = current_kernel_image().arch >= 90;
  return waits;
}

std::string describe_kernel_image(const KernelImage& image) {
  if (image.arch == 0) return "no kernel image for this device";
  std::string out =
      image.sm90a ? "the sm_90a image (Hopper kernels)" : fmt::format("the sm_{} image (generic kernels)", image.arch);
  if (image.binary > image.arch) out += fmt::format(", compiled by the driver from PTX for sm_{}", image.binary);
  return out;
}

std::string compiled_architectures() {
  // LAYA_CUDA_ARCHS is the CMake list joined with commas, e.g. "80-real,90a-real": "-real" is SASS
  // only, "-virtual" PTX only, no suffix both.
  std::string_view list = LAYA_CUDA_ARCHS;
  std::string out;
  while (!list.empty()) {
    const size_t semi = list.find(',');
    std::string_view item = list.substr(0, semi);
    const size_t dash = item.find('-');
    const std::string arch(item.substr(0, dash));
    const std::string_view kind = dash == std::string_view::npos ? std::string_view{} : item.substr(dash + 1);
    if (!out.empty()) out += ", ";
    if (kind == "real")
      out += "sm_" + arch;
    else if (kind == "virtual")
      out += "compute_" + arch + " (PTX)";
    else
      out += "sm_" + arch + " + compute_" + arch + " (PTX)";
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
