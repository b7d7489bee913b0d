#include <gtest/gtest.h>

#include <string>

#include "api/json.h"
#include "api/python_json.h"

namespace laya::api {
namespace {

JsonParseError::Reason reason_of(std::string_view text, const ParseLimits& limits = {}) {
  try {
    parse_json(text, limits);
  } catch (const JsonParseError& e) {
    return e.reason();
  }
  ADD_FAILURE() << "accepted: " << text;
  return JsonParseError::Reason::syntax;
}

TEST(Json, KeepsMemberOrderAndSpellings) {
  Json v = parse_json(R"({"b": 1, "a": [1e5, 123456789012345678901234567890, -0, 0.10], "c": {"x": null}})");
  ASSERT_TRUE(v.is_object());
  ASSERT_EQ(v.members().size(), 3u);
  EXPECT_EQ(v.members()[0].first, "b");
  EXPECT_EQ(v.members()[1].first, "a");
  const auto& a = v.find("a")->items();
  EXPECT_FALSE(a[0].is_integer());
  EXPECT_TRUE(a[1].is_integer());
  EXPECT_EQ(a[1].number_text(), "123456789012345678901234567890");
  EXPECT_EQ(python_dumps(v), R"({"b": 1, "a": [100000.0, 123456789012345678901234567890, 0, 0.1], "c": {"x": null}})");
}

TEST(Json, DuplicateKeysBelowTopLevelLastValueFirstPosition) {
  Json v = parse_json(R"({"s": {"a": 1, "b": 2, "a": 3}})");
  EXPECT_EQ(python_dumps(*v.find("s")), R"({"a": 3, "b": 2})");
  EXPECT_EQ(reason_of(R"({"a": 1, "a": 2})"), JsonParseError::Reason::duplicate_key);
  ParseLimits lenient;
  lenient.reject_top_level_duplicates = false;
  EXPECT_EQ(python_dumps(parse_json(R"({"a": 1, "b": 0, "a": 2})", lenient)), R"({"a": 2, "b": 0})");
}

TEST(Json, ManyKeysUseIndexForDuplicates) {
  std::string text = "{\"s\":{";
  for (int i = 0; i < 100; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k5\":\"last\"}}";
  Json v = parse_json(text);
  const Json& s = *v.find("s");
  EXPECT_EQ(s.size(), 100u);
  EXPECT_EQ(s.members()[5].second.as_string(), "last");
}

TEST(Json, RejectsWhatPythonRejects) {
  for (const char* bad : {"", " ", "{", "[1,]", "{\"a\":1,}", "01", "-", "1.", ".5", "1e", "+1", "'a'", "[1 2]",
                          "{\"a\" 1}", "{1:2}", "tru", "nul", "\"abc", "\"\\x\"", "\"\\u12\"", "\"a\tb\"",
                          "\"a\nb\"", "[1]x", "[] []", "\"\\u00zz\""}) {
    EXPECT_EQ(reason_of(bad), JsonParseError::Reason::syntax) << bad;
  }
}

TEST(Json, RejectsNonFiniteAndSurrogatesAndBadUtf8) {
  EXPECT_EQ(reason_of("NaN"), JsonParseError::Reason::non_finite);
  EXPECT_EQ(reason_of("[Infinity]"), JsonParseError::Reason::non_finite);
  EXPECT_EQ(reason_of("{\"a\": -Infinity}"), JsonParseError::Reason::non_finite);
  EXPECT_EQ(reason_of("1e400"), JsonParseError::Reason::non_finite);
  EXPECT_EQ(reason_of("-1.5e309"), JsonParseError::Reason::non_finite);
  EXPECT_EQ(reason_of("\"\\ud800\""), JsonParseError::Reason::lone_surrogate);
  EXPECT_EQ(reason_of("\"\\udc00\""), JsonParseError::Reason::lone_surrogate);
  EXPECT_EQ(reason_of("\"\\ud800\\u0041\""), JsonParseError::Reason::lone_surrogate);
  EXPECT_EQ(reason_of("\"\xff\""), JsonParseError::Reason::invalid_utf8);
  EXPECT_EQ(reason_of("\"\xc0\x80\""), JsonParseError::Reason::invalid_utf8);      // overlong
  EXPECT_EQ(reason_of("\"\xed\xa0\x80\""), JsonParseError::Reason::invalid_utf8);  // encoded surrogate
  EXPECT_EQ(reason_of("\"\xf4\x90\x80\x80\""), JsonParseError::Reason::invalid_utf8);
  EXPECT_EQ(reason_of("\"\xe2\x82\""), JsonParseError::Reason::invalid_utf8);  // truncated
  // Underflow is fine (Python: 0.0); so are huge integers.
  EXPECT_EQ(python_dumps(parse_json("[1e-400, -1e-400, 1" + std::string(400, '0') + "]")),
            "[0.0, -0.0, 1" + std::string(400, '0') + "]");
  EXPECT_EQ(reason_of("1" + std::string(4300, '0')), JsonParseError::Reason::integer_too_long);
}

TEST(Json, DepthCapWithoutStackOverflow) {
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  EXPECT_EQ(reason_of(deep), JsonParseError::Reason::too_deep);
  std::string deep_obj;
  for (int i = 0; i < 100000; ++i) deep_obj += "{\"a\":";
  EXPECT_EQ(reason_of(deep_obj), JsonParseError::Reason::too_deep);
  std::string ok(128, '[');
  ok += std::string(128, ']');
  EXPECT_NO_THROW(parse_json(ok));
  std::string over(129, '[');
  over += std::string(129, ']');
  EXPECT_EQ(reason_of(over), JsonParseError::Reason::too_deep);
}

TEST(Json, SurrogatePairsAndBom) {
  EXPECT_EQ(parse_json("\"\\ud83d\\ude00\"").as_string(), "\xF0\x9F\x98\x80");
  EXPECT_EQ(parse_json("\xEF\xBB\xBF[1]").items().size(), 1u);
}

TEST(Json, ErrorNamesPosition) {
  try {
    parse_json("{\"a\":\n [1,]}");
    FAIL();
  } catch (const JsonParseError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
    EXPECT_EQ(e.kind(), ErrorKind::bad_request);
  }
}

}  // namespace
}  // namespace laya::api
