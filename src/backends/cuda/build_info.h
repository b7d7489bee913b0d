// What the CUDA backend was built with and what it finds at run time.
#pragma once

#include <string>

namespace laya::cuda {

// Multi-line text: compiled architectures, CUDA runtime (static) and driver versions, cuBLASLt
// version, and the visible GPUs (or why none is usable). Never throws; works without a GPU.
std::string build_description();

// The architectures compiled into the kernels, e.g. "sm_80, sm_90a".
std::string compiled_architectures();

// Whether the kernels of this binary can run on the current device (cudaFuncGetAttributes on a
// kernel); on false, *why holds the CUDA error text.
bool kernels_runnable_on_current_device(std::string* why);

// The image of this binary's kernels that the runtime loads for the current device — the same for
// every kernel, since each of laya_cuda's .cu files is compiled for the same architectures.
struct KernelImage {
  int arch = 0;        // the architecture the image was compiled for (__CUDA_ARCH__ / 10); 0: unknown
  bool sm90a = false;  // the sm_90a image: the Hopper kernels (wgmma, TMA, setmaxnreg) are in it
  int binary = 0;      // the SASS it runs as (cudaFuncAttributes::binaryVersion): > arch where the
                       // driver compiled it from PTX for a newer device
};
// Read without a launch: a probe kernel's static shared memory encodes the image it was compiled
// into. The device's compute capability alone does not say which image runs: a build for sm_90
// (CMake's `90` or `native` on a Hopper) or with PTX only (`80-virtual`) runs on an H100 without
// the sm_90a instructions, whose helpers trap there (wgmma.cuh), and without griddepcontrol.wait,
// which programmatic launches rely on (pdl.h).
KernelImage current_kernel_image();
// current_kernel_image() on the first device asked, cached for the process: whether the kernels
// call griddepcontrol.wait (compiled for sm_90 or later), without which no launch is programmatic.
bool kernel_image_waits_for_pdl();
std::string describe_kernel_image(const KernelImage& image);

}  // namespace laya::cuda
