// The attention kernel's query tile (queries per block), shared by the host-side tile table.
#pragma once

#include <cstdint>

namespace laya::cuda {
constexpr int32_t kAttnTile = 64;
}  // namespace laya::cuda
