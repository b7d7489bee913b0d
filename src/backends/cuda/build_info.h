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
  int binary = 0;      // the SASS it runs as (cudaFuncAttributes::binaryVersion); 0: none loads
  bool sm90a = false;  // compiled for sm_90a: the Hopper kernels (wgmma, TMA, setmaxnreg) are in it
  bool sm90 = false;   // compiled for sm_90 or later: dev::pdl_prologue waits (griddepcontrol.wait)
};
// Read without a launch, from two probe kernels that hold static shared memory only in the images
// with the property. The device's compute capability does not say which image runs: a build for
// sm_90 without "a" (CMake's `90`, or `native` on a Hopper) or with PTX only (`80-virtual`, `80`)
// loads as binaryVersion 90 on an H100/H200 too, without the sm_90a instructions, whose helpers
// trap (wgmma.cuh), and — from PTX for sm_80 — without the wait that programmatic launches rely
// on (pdl.h).
KernelImage current_kernel_image();
// current_kernel_image().sm90 on the first device asked, cached for the process: no launch is
// programmatic where the kernels do not wait.
bool kernel_image_waits_for_pdl();
std::string describe_kernel_image(const KernelImage& image);

}  // namespace laya::cuda
