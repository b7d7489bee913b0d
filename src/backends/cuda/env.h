// Integer settings of the CUDA engine read from the environment (experiment switches, thresholds).
#pragma once

#include <cstdint>

namespace laya::cuda {

// The variable's value as an integer, or `fallback` when it is unset or empty.
int32_t env_int(const char* name, int32_t fallback);

}  // namespace laya::cuda
