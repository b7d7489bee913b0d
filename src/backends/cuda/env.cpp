#include "backends/cuda/env.h"

#include <cstdlib>

namespace laya::cuda {

int32_t env_int(const char* name, int32_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != 0 ? static_cast<int32_t>(std::atoi(v)) : fallback;
}

}  // namespace laya::cuda
