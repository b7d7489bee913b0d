#include <gtest/gtest.h>

#include <string>

#include "api/error_body.h"
#include "api/python_json.h"
#include "api/request.h"

namespace laya::api {
namespace {

struct Failure {
  int status = 0;
  std::string detail;
};

Failure fail_of(std::string_view body) {
  try {
    parse_request(body);
  } catch (const Error& e) {
    return {http_status(e.kind()), e.what()};
  }
  return {200, ""};
}

#define EXPECT_FAIL(body, code, text)            \
  do {                                           \
    Failure f_ = fail_of(body);                  \
    EXPECT_EQ(f_.status, code) << f_.detail;     \
    EXPECT_EQ(f_.detail, text);                  \
  } while (0)

TEST(Request, ParsesAllShapes) {
  DecisionRequest r = parse_request(R"({"state": {"b": 1e5, "a": "x"}, "questions": {
    "c": {"type": "choice", "instructions": "Pick", "criteria": {"billing": "Charges", "tech": null, "z": 0, "e": ""}},
    "l": {"type": "choice", "instructions": {"k": "ü"}, "criteria": ["a", "b", "a", 1, true, null, 2.50]},
    "s": {"type": "score", "instructions": 5, "criteria": ["low", {"d": 1.0}, null]},
    "n": {"type": "noul", "instructions": "Yes?", "criteria": {"TRUE": "it holds"}, "labels": {"false": " no ", "true": "yes"}},
    "m": {"type": "noul", "instructions": "Q", "labels": null}
  }, "model": "english", "unknown": [1]})");
  EXPECT_EQ(r.state_text, R"({"b": 100000.0, "a": "x"})");
  EXPECT_FALSE(r.state_is_list);
  ASSERT_EQ(r.questions.size(), 5u);
  EXPECT_EQ(r.model.value_or(""), "english");
  const auto& c = r.questions[0];
  EXPECT_EQ(c.option_texts, (std::vector<std::string>{"billing: Charges", "tech", "z: 0", "e"}));
  EXPECT_EQ(c.option_keys, (std::vector<std::string>{"billing", "tech", "z", "e"}));
  const auto& l = r.questions[1];
  EXPECT_EQ(l.instructions, R"({"k": "ü"})");
  EXPECT_EQ(l.option_texts, (std::vector<std::string>{"a", "b", "1", "True", "None", "2.5"}));
  const auto& s = r.questions[2];
  EXPECT_EQ(s.instructions, "5");
  EXPECT_EQ(s.option_texts, (std::vector<std::string>{"level 0: low", "level 1: {\"d\": 1.0}", "level 2: null"}));
  EXPECT_EQ(s.option_keys, (std::vector<std::string>{"0", "1", "2"}));
  ASSERT_EQ(s.legend.size(), 3u);
  const auto& n = r.questions[3];
  EXPECT_EQ(n.option_texts, (std::vector<std::string>{"no: no, the statement does not hold", "yes: it holds"}));
  EXPECT_EQ(r.questions[4].option_texts,
            (std::vector<std::string>{"false: no, the statement does not hold", "true: yes, the statement holds"}));
}

TEST(Request, ListStateAndStringState) {
  DecisionRequest r = parse_request(R"({"state": [{"role": "user", "content": "hi"}], "questions": {}})");
  EXPECT_TRUE(r.state_is_list);
  EXPECT_EQ(r.state_text, R"([{"role": "user", "content": "hi"}])");
  DecisionRequest s = parse_request(R"({"state": "plain \u00e9", "questions": {}})");
  EXPECT_EQ(s.state_text, "plain \xc3\xa9");
}

TEST(Request, BodyErrors) {
  EXPECT_FAIL("not json", 400, "request body must be valid JSON");
  EXPECT_FAIL("[1, 2]", 400, "request body must be an object with a 'questions' field");
  EXPECT_FAIL(R"({"state": "x"})", 400, "request body must be an object with a 'questions' field");
  EXPECT_FAIL(R"({"state": "x", "questions": []})", 400, "'questions' must be an object");
  EXPECT_FAIL(R"({"state": "x", "questions": null})", 400, "'questions' must be an object");
  EXPECT_EQ(fail_of(R"({"questions": {}})").status, 400);
  EXPECT_EQ(fail_of(R"({"state": null, "questions": {}})").status, 400);
  EXPECT_EQ(fail_of(R"({"state": NaN, "questions": {}})").status, 400);
  EXPECT_EQ(fail_of(R"({"state": 1e400, "questions": {}})").status, 400);
  EXPECT_EQ(fail_of(R"({"state": "\ud800", "questions": {}})").status, 400);
  EXPECT_EQ(fail_of("{\"state\": \"\xff\", \"questions\": {}}").status, 400);
  EXPECT_EQ(fail_of(R"({"state": "a", "state": "b", "questions": {}})").status, 400);
  std::string deep = "{\"state\": " + std::string(10000, '[') + std::string(10000, ']') + ", \"questions\": {}}";
  EXPECT_EQ(fail_of(deep).status, 400);
}

TEST(Request, Limits) {
  std::string many = R"({"state": "x", "questions": {)";
  for (int i = 0; i < 100000; ++i) many += (i ? "," : "") + std::string("\"q") + std::to_string(i) + "\":{}";
  many += "}}";
  RequestLimits big_body;
  big_body.max_body_bytes = 64u << 20;
  try {
    parse_request(many, big_body);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(http_status(e.kind()), 413);
    EXPECT_STREQ(e.what(), "too many questions (100000 > 64)");
  }
  EXPECT_FAIL(many, 413, "too many questions (100000 > 64)");
  std::string state(4u << 20, 'a');
  EXPECT_FAIL(R"({"state": ")" + state + R"(", "questions": {}})", 413, "request body too large");
  std::string s50k(50001, 'a');
  EXPECT_FAIL(R"({"state": ")" + s50k + R"(", "questions": {}})", 413, "state too large (50001 > 50000 chars)");
  // Non-string states are measured by Python's str() (repr): {'a': 'xxx'}.
  std::string s49k(49991, 'x');  // {'a': '...'} adds 9
  EXPECT_EQ(fail_of(R"({"state": {"a": ")" + s49k + R"("}, "questions": {}})").status, 200);
  EXPECT_FAIL(R"({"state": {"a": ")" + s49k + R"(x"}, "questions": {}})", 413, "state too large (50001 > 50000 chars)");
}

TEST(Request, QuestionErrorsUseOfficialTexts) {
  auto body = [](const std::string& q) { return R"({"state": "s", "questions": {"q1": )" + q + "}}"; };
  EXPECT_FAIL(body("5"), 422, "question 'q1': definition must be a dict, got int");
  EXPECT_FAIL(body("[]"), 422, "question 'q1': definition must be a dict, got list");
  EXPECT_FAIL(body(R"({"type": "x"})"), 422, "question 'q1': unknown type 'x'; use one of ['choice', 'noul', 'score']");
  EXPECT_FAIL(body(R"({})"), 422, "question 'q1': unknown type None; use one of ['choice', 'noul', 'score']");
  EXPECT_FAIL(body(R"({"type": "choice", "criteria": ["a"]})"), 422,
              "question 'q1': no 'instructions'; add the text the model should answer");
  EXPECT_FAIL(body(R"({"type": "choice", "instructions": "i", "criteria": "a"})"), 422,
              "question 'q1': a choice question takes 'criteria' as a dict of label -> description, or a list of labels");
  EXPECT_FAIL(body(R"({"type": "choice", "instructions": "i", "criteria": {}})"), 422,
              "question 'q1': a choice question needs at least one criterion");
  EXPECT_FAIL(body(R"({"type": "score", "instructions": "i", "criteria": {"a": 1}})"), 422,
              "question 'q1': a score question takes 'criteria' as a list of level descriptions, index 0 first");
  EXPECT_FAIL(body(R"({"type": "score", "instructions": "i", "criteria": []})"), 422,
              "question 'q1': a score question needs at least one level");
  EXPECT_FAIL(body(R"({"type": "noul", "instructions": "i", "criteria": ["a"]})"), 422,
              "question 'q1': a noul question takes 'criteria' as a dict with optional 'true'/'false' descriptions, or omits it");
  EXPECT_FAIL(body(R"({"type": "noul", "instructions": "i", "criteria": {"True": "a", "maybe": "b"}})"), 422,
              "question 'q1': a noul question takes 'criteria' keyed only 'true'/'false' (either or both, and omitted "
              "is fine), got ['maybe', 'true']. Those keys are the option texts the model reads; any other key was "
              "silently dropped and replaced with the defaults. If you want the answer worded differently, keep "
              "'criteria' keyed 'true'/'false' and set 'labels' instead.");
  EXPECT_FAIL(body(R"({"type": "choice", "instructions": "i", "criteria": ["a"], "labels": {"false": "n", "true": "y"}})"),
              422, "question 'q1': 'labels' is only supported for noul questions");
  const char* kLabels = "question 'q1': noul labels must map exactly 'false' and 'true' to distinct non-empty strings";
  EXPECT_FAIL(body(R"({"type": "noul", "instructions": "i", "labels": {"false": "a", "true": " a "}})"), 422, kLabels);
  EXPECT_FAIL(body(R"({"type": "noul", "instructions": "i", "labels": {"false": " ", "true": "a"}})"), 422, kLabels);
  EXPECT_FAIL(body(R"({"type": "noul", "instructions": "i", "labels": {"false": 1, "true": "a"}})"), 422, kLabels);
  EXPECT_FAIL(body(R"({"type": "noul", "instructions": "i", "labels": {"true": "a"}})"), 422, kLabels);
  EXPECT_FAIL(body(R"({"type": "noul", "instructions": "i", "labels": []})"), 422, kLabels);
  // Python repr quoting of ids.
  Failure f = fail_of(R"({"state": "s", "questions": {"it's": {"type": 1}}})");
  EXPECT_EQ(f.detail, "question \"it's\": unknown type 1; use one of ['choice', 'noul', 'score']");
}

TEST(Request, ErrorBody) {
  EXPECT_EQ(error_body("question 'q': caf\xc3\xa9 \"x\""), "{\"detail\":\"question 'q': caf\xc3\xa9 \\\"x\\\"\"}");
  EXPECT_EQ(error_body(Error(ErrorKind::internal, "/secret/path")), "{\"detail\":\"inference failed\"}");
}

}  // namespace
}  // namespace laya::api
