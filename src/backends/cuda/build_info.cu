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

// Probes of the image the runtime loads, never launched: each holds static shared memory only in
// the images with the property it stands for, so cudaFuncGetAttributes' sharedSizeBytes (0 or
// not) says which image runs — whatever granularity the size might be reported in.
enum class ImageProperty { sm90a, sm90 };
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
constexpr bool kCompiledSm90a = true;
#else
constexpr bool kCompiledSm90a = false;
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
constexpr bool kCompiledSm90 = true;
#else
constexpr bool kCompiledSm90 = false;
#endif
template <ImageProperty kProperty>
__global__ void image_probe_kernel(int* p) {
  if constexpr (kProperty == ImageProperty::sm90a ? kCompiledSm90a : kCompiledSm90) {
    __shared__ int words[32];  // used, so that it is kept
    words[threadIdx.x % 32] = p[threadIdx.x];
    __syncthreads();
    p[threadIdx.x] = words[(threadIdx.x + 1) % 32];
  }
}
}  // namespace

KernelImage current_kernel_image() {
  cudaFuncAttributes sm90a{}, sm90{};
  KernelImage image;
  if (cudaFuncGetAttributes(&sm90a, image_probe_kernel<ImageProperty::sm90a>) != cudaSuccess ||
      cudaFuncGetAttributes(&sm90, image_probe_kernel<ImageProperty::sm90>) != cudaSuccess) {
    cudaGetLastError();
    return image;
  }
  image.binary = sm90.binaryVersion;
  image.sm90a = sm90a.sharedSizeBytes > 0;
  image.sm90 = sm90.sharedSizeBytes > 0;
  return image;
}

bool kernel_image_waits_for_pdl() {
  static const bool waits = current_kernel_image().sm90;
  return waits;
}

std::string describe_kernel_image(const KernelImage& image) {
  if (image.binary == 0) return "no kernel image for this device";
  if (image.sm90a) return "the sm_90a image (Hopper kernels)";
  return fmt::format("an sm_{} image without sm_90a (generic kernels{})", image.binary,
                     image.sm90 ? "" : ", no programmatic launches");
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
