#include "common/json_depth.h"

#include <gtest/gtest.h>

#include <string>

namespace laya {
namespace {

TEST(JsonNestingDepth, CountsBracketsAndBracesOutsideStrings) {
  EXPECT_EQ(json_nesting_depth("", 64), 0u);
  EXPECT_EQ(json_nesting_depth("1", 64), 0u);
  EXPECT_EQ(json_nesting_depth(R"({"a": {"shape": [1, 2]}})", 64), 3u);
  EXPECT_EQ(json_nesting_depth(R"([[1], [[2]], 3])", 64), 3u);
  // Inside strings brackets do not nest, an escaped quote does not end the string, and an escaped
  // backslash does not escape the quote after it.
  EXPECT_EQ(json_nesting_depth(R"({"k": "[[[{{{"})", 64), 1u);
  EXPECT_EQ(json_nesting_depth(R"({"k": "a\"[[[["})", 64), 1u);
  EXPECT_EQ(json_nesting_depth(R"({"k": "a\\", "v": [[1]]})", 64), 3u);
  // Unbalanced closers never take the depth below zero.
  EXPECT_EQ(json_nesting_depth("]]]][", 64), 1u);
}

TEST(JsonNestingDepth, StopsOncePastTheLimit) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  EXPECT_EQ(json_nesting_depth(deep, 64), 65u);  // the scan ends at the 65th level
  EXPECT_EQ(json_nesting_depth(std::string(64, '[') + std::string(64, ']'), 64), 64u);
}

}  // namespace
}  // namespace laya
