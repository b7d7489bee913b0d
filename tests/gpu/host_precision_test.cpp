// The CUDA precision option: what --precision and the checkpoint's amp_dtype resolve to (no GPU).
#include <gtest/gtest.h>

#include "backends/cuda/precision.h"
#include "laya/errors.h"

namespace laya::cuda {
namespace {

TEST(CudaPrecision, AutoFollowsAmpDtypeAsLayasAgent) {
  EXPECT_EQ(resolve_precision("auto", "bf16"), Precision::bf16);
  EXPECT_EQ(resolve_precision("auto", "fp16"), Precision::fp16);
  EXPECT_EQ(resolve_precision("", "bf16"), Precision::bf16);
  EXPECT_EQ(resolve_precision("auto", "something"), Precision::fp16);  // laya: anything but "bf16" is fp16
}

TEST(CudaPrecision, ExplicitModesWinAndOthersAreRefused) {
  EXPECT_EQ(resolve_precision("fp16", "bf16"), Precision::fp16);
  EXPECT_EQ(resolve_precision("bf16", "fp16"), Precision::bf16);
  EXPECT_STREQ(precision_name(Precision::bf16), "bf16");
  EXPECT_STREQ(precision_name(Precision::fp16), "fp16");
  for (const char* bad : {"fp32", "BF16", "f16", "auto "}) {
    try {
      resolve_precision(bad, "bf16");
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::bad_request) << bad;
      EXPECT_NE(std::string(e.what()).find("auto, bf16 or fp16"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace laya::cuda
