// Backend: runs Laya's forward pass (encoder, decision layers, scorer, action head) on a Batch.
// Implementations: backends/cpu (fp32 reference, the oracle) and backends/cuda.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/batch.h"
#include "engine/dump.h"

namespace laya::engine {

struct BackendInfo {
  std::string backend;     // "cpu" | "cuda"
  std::string device;      // e.g. "NVIDIA H200 (sm_90)" or "CPU, 2 threads"
  std::string precision;   // "fp32" | "bf16" | ...
  int64_t weight_bytes = 0;
  int64_t device_memory_used = 0;  // bytes, 0 if not applicable
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Runs the whole forward for every row of `batch` (batch.validate() must pass). Thread
  // compatible, not thread safe: one caller at a time. `dumps` (optional) receives named
  // intermediates for parity work; a null sink costs nothing.
  virtual ForwardResult forward(const Batch& batch, DumpSink* dumps = nullptr) = 0;
  virtual BackendInfo info() const = 0;
};

}  // namespace laya::engine
