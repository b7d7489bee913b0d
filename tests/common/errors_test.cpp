#include <gtest/gtest.h>

#include "laya/errors.h"

namespace laya {
namespace {

TEST(Errors, KindsMapToHttpStatus) {
  EXPECT_EQ(http_status(ErrorKind::bad_request), 400);
  EXPECT_EQ(http_status(ErrorKind::unauthorized), 401);
  EXPECT_EQ(http_status(ErrorKind::too_large), 413);
  EXPECT_EQ(http_status(ErrorKind::unsupported_media), 415);
  EXPECT_EQ(http_status(ErrorKind::unprocessable), 422);
  EXPECT_EQ(http_status(ErrorKind::overloaded), 429);
  EXPECT_EQ(http_status(ErrorKind::unavailable), 503);
  EXPECT_EQ(http_status(ErrorKind::internal), 500);
}

TEST(Errors, FailFormatsMessageAndKind) {
  try {
    LAYA_FAIL(ErrorKind::unprocessable, "question {}: {}", "\"q1\"", "bad");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::unprocessable);
    EXPECT_STREQ(e.what(), "question \"q1\": bad");
  }
}

TEST(Errors, AssertCarriesLocation) {
  try {
    LAYA_ASSERT(1 + 1 == 3, "math is {}", "broken");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::internal);
    EXPECT_NE(std::string(e.what()).find("errors_test.cpp"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("math is broken"), std::string::npos);
  }
}

}  // namespace
}  // namespace laya
