#include "backends/cuda/precision.h"

#include "laya/errors.h"

namespace laya::cuda {

Precision resolve_precision(const std::string& option, const std::string& amp_dtype) {
  if (option == "bf16") return Precision::bf16;
  if (option == "fp16") return Precision::fp16;
  LAYA_REQUIRE(option.empty() || option == "auto", ErrorKind::bad_request,
               "--precision must be auto, bf16 or fp16 (got '{}')", option);
  return amp_dtype == "bf16" ? Precision::bf16 : Precision::fp16;  // laya.common.amp_dtype
}

const char* precision_name(Precision p) { return p == Precision::fp16 ? "fp16" : "bf16"; }

}  // namespace laya::cuda
