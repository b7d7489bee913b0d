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

}  // namespace laya::cuda
