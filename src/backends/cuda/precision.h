// The CUDA engine's precision mode: the 16-bit type of its weights, GEMM inputs and activations.
// bf16 is the official CUDA policy (autocast bf16: matrices rounded from the fp16 checkpoint);
// fp16 is the official Agent's autocast fp16 (taken when a checkpoint's amp_dtype is not "bf16"):
// the checkpoint's fp16 matrices used exactly and 3 more mantissa bits per activation, so it stays
// closer to the fp32 forward. Everything else (fp32 residual stream, LayerNorm, softmax, GEMM
// accumulation) is the same in both.
#pragma once

#include <cstdint>
#include <string>

namespace laya::cuda {

enum class Precision : uint8_t { bf16, fp16 };

// The mode for a --precision option: "bf16" or "fp16" as given; "auto" (or empty) follows the
// checkpoint's amp_dtype as laya's Agent does on compute capability >= 8 ("bf16" -> bf16, anything
// else -> fp16). Any other option is a bad_request.
Precision resolve_precision(const std::string& option, const std::string& amp_dtype);

const char* precision_name(Precision p);

}  // namespace laya::cuda
