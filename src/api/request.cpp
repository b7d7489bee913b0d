#include "api/request.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "api/python_json.h"

namespace laya::api {

namespace {

constexpr std::string_view kInvalidJson = "request body must be valid JSON";
constexpr std::string_view kNoulLabels = "noul labels must map exactly 'false' and 'true' to distinct non-empty strings";

[[noreturn]] void fail_q(const std::string& id, std::string_view what) {
  throw Error(ErrorKind::unprocessable, fmt::format("question {}: {}", python_repr_string(id), what));
}

// render_criterion: strings pass through, anything else is json.dumps(ensure_ascii=False).
std::string render_criterion(const Json& v) {
  if (v.is_string()) return v.as_string();
  return python_dumps(v);
}

// "no description" test of render_options: `v is None or v == ""`.
bool no_description(const Json& v) { return v.is_null() || (v.is_string() && v.as_string().empty()); }

// Python str(k) of a hashable scalar label.
std::string python_str_scalar(const Json& v) {
  if (v.is_string()) return v.as_string();
  return python_repr(v);  // None, True/False, int, float repr
}

// Validates noul labels like _resolve_noul_labels; returns the stripped pair.
std::pair<std::string, std::string> resolve_noul_labels(const Json* labels) {
  if (labels == nullptr || labels->is_null()) return {"false", "true"};
  if (!labels->is_object() || labels->size() != 2 || !labels->contains("false") || !labels->contains("true"))
    throw Error(ErrorKind::unprocessable, std::string(kNoulLabels));
  const Json* f = labels->find("false");
  const Json* t = labels->find("true");
  if (!f->is_string() || !t->is_string()) throw Error(ErrorKind::unprocessable, std::string(kNoulLabels));
  std::string fl(python_strip(f->as_string())), tl(python_strip(t->as_string()));
  if (fl.empty() || tl.empty() || fl == tl) throw Error(ErrorKind::unprocessable, std::string(kNoulLabels));
  return {fl, tl};
}

}  // namespace

std::string_view qtype_name(model::QType t) {
  switch (t) {
    case model::QType::choice: return "choice";
    case model::QType::score: return "score";
    case model::QType::noul: return "noul";
  }
  return "?";
}

Question parse_question(const std::string& id, const Json& q) {
  // --- Agent._check_question, in its order ---
  if (!q.is_object()) fail_q(id, fmt::format("definition must be a dict, got {}", q.python_type_name()));
  const Json* type = q.find("type");
  Question out;
  out.id = id;
  bool known = type != nullptr && type->is_string() &&
               (type->as_string() == "choice" || type->as_string() == "score" || type->as_string() == "noul");
  if (!known) {
    Json none;
    fail_q(id, fmt::format("unknown type {}; use one of ['choice', 'noul', 'score']", python_repr(type ? *type : none)));
  }
  const std::string& t = type->as_string();
  out.type = t == "choice" ? model::QType::choice : t == "score" ? model::QType::score : model::QType::noul;
  const Json* ins = q.find("instructions");
  if (ins == nullptr) fail_q(id, "no 'instructions'; add the text the model should answer");
  const Json* crit = q.find("criteria");
  Json null_crit;
  if (crit == nullptr) crit = &null_crit;
  if (out.type == model::QType::choice) {
    if (!crit->is_object() && !crit->is_array())
      fail_q(id, "a choice question takes 'criteria' as a dict of label -> description, or a list of labels");
    if (crit->size() == 0) fail_q(id, "a choice question needs at least one criterion");
  } else if (out.type == model::QType::score) {
    if (!crit->is_array())
      fail_q(id, "a score question takes 'criteria' as a list of level descriptions, index 0 first");
    if (crit->size() == 0) fail_q(id, "a score question needs at least one level");
  } else if (!crit->is_null() && !crit->is_object()) {
    fail_q(id, "a noul question takes 'criteria' as a dict with optional 'true'/'false' descriptions, or omits it");
  } else if (crit->is_object()) {
    std::set<std::string> keys;  // Python sorts str by code point == UTF-8 byte order
    for (const auto& [k, v] : crit->members()) keys.insert(python_lower(k));
    bool ok = true;
    for (const auto& k : keys) ok = ok && (k == "true" || k == "false");
    if (!ok) {
      Json list = Json::make_array();
      for (const auto& k : keys) list.push_back(Json::make_string(k));
      fail_q(id, fmt::format(
                     "a noul question takes 'criteria' keyed only 'true'/'false' (either or both, and omitted is "
                     "fine), got {}. Those keys are the option texts the model reads; any other key was silently "
                     "dropped and replaced with the defaults. If you want the answer worded differently, keep "
                     "'criteria' keyed 'true'/'false' and set 'labels' instead.",
                     python_repr(list)));
    }
  }
  const Json* labels = q.find("labels");
  if (labels != nullptr) {
    if (out.type != model::QType::noul) fail_q(id, "'labels' is only supported for noul questions");
    try {
      resolve_noul_labels(labels);
    } catch (const Error& e) {
      fail_q(id, e.what());
    }
  }

  // --- _to_internal ---
  out.instructions_raw = *ins;
  out.instructions = ins->is_string() ? ins->as_string() : python_dumps(*ins);

  // --- render_options ---
  if (out.type == model::QType::choice) {
    if (crit->is_array()) {
      // {c: None for c in crit}: duplicates collapse onto the first position.
      std::set<std::string> seen;
      for (const auto& c : crit->items()) {
        if (c.is_array() || c.is_object())
          fail_q(id, fmt::format("choice labels must be strings or other scalars, got {}", c.python_type_name()));
        std::string label = python_str_scalar(c);
        if (!seen.insert(label).second) continue;
        out.option_texts.push_back(label);
        out.option_keys.push_back(std::move(label));
      }
    } else {
      for (const auto& [k, v] : crit->members()) {
        out.option_texts.push_back(no_description(v) ? k : fmt::format("{}: {}", k, render_criterion(v)));
        out.option_keys.push_back(k);
      }
    }
  } else if (out.type == model::QType::score) {
    size_t i = 0;
    for (const auto& c : crit->items()) {
      out.option_texts.push_back(fmt::format("level {}: {}", i, render_criterion(c)));
      out.option_keys.push_back(std::to_string(i));
      out.legend.push_back(c);
      ++i;
    }
  } else {
    auto [fl, tl] = resolve_noul_labels(labels);
    // crit keys lower-cased; a later key spelling the same name wins (dict comprehension).
    const Json* fc = nullptr;
    const Json* tc = nullptr;
    if (crit->is_object()) {
      for (const auto& [k, v] : crit->members()) {
        std::string lk = python_lower(k);
        if (lk == "false") fc = &v;
        if (lk == "true") tc = &v;
      }
    }
    out.option_texts.push_back(fl + ": " +
                               (fc && !no_description(*fc) ? render_criterion(*fc) : "no, the statement does not hold"));
    out.option_texts.push_back(tl + ": " + (tc && !no_description(*tc) ? render_criterion(*tc) : "yes, the statement holds"));
    out.option_keys = {"false", "true"};
  }
  return out;
}

DecisionRequest request_from_json(Json body, const RequestLimits& limits) {
  if (!body.is_object() || !body.contains("questions"))
    throw Error(ErrorKind::bad_request, "request body must be an object with a 'questions' field");
  DecisionRequest req;
  Json questions;
  bool has_state = false;
  for (auto& [k, v] : body.members()) {
    if (k == "questions") {
      questions = std::move(v);
    } else if (k == "state") {
      req.state = std::move(v);
      has_state = true;
    } else if (k == "model") {
      if (v.is_string() && !v.as_string().empty()) req.model = v.as_string();
    } else if (k == "lang") {
      if (v.is_string() && !v.as_string().empty()) req.lang = v.as_string();
    }
  }
  if (!questions.is_object()) throw Error(ErrorKind::bad_request, "'questions' must be an object");
  if (!has_state || req.state.is_null())
    throw Error(ErrorKind::bad_request, "request body must have a non-null 'state' field");
  if (questions.size() > limits.max_questions)
    throw Error(ErrorKind::too_large, fmt::format("too many questions ({} > {})", questions.size(), limits.max_questions));
  size_t state_len = 0;
  if (req.state.is_string()) {
    req.state_text = req.state.as_string();
    state_len = python_len(req.state_text);
  } else {
    // len(str(state)): Python's repr, not the JSON text.
    state_len = python_len(python_repr(req.state));
    req.state_text = python_dumps(req.state);
  }
  if (state_len > limits.max_state_chars)
    throw Error(ErrorKind::too_large, fmt::format("state too large ({} > {} chars)", state_len, limits.max_state_chars));
  req.state_is_list = req.state.is_array();
  req.questions.reserve(questions.size());
  for (const auto& [id, def] : questions.members()) req.questions.push_back(parse_question(id, def));
  return req;
}

DecisionRequest parse_request(std::string_view body, const RequestLimits& limits) {
  if (body.size() > limits.max_body_bytes) throw Error(ErrorKind::too_large, "request body too large");
  ParseLimits pl;
  pl.max_depth = limits.max_depth;
  Json doc;
  try {
    doc = parse_json(body, pl);
  } catch (const JsonParseError& e) {
    // Errors json.loads also raises keep the official generic text; the stricter rejections name
    // the reason.
    if (e.reason() == JsonParseError::Reason::syntax || e.reason() == JsonParseError::Reason::integer_too_long)
      throw Error(ErrorKind::bad_request, std::string(kInvalidJson));
    throw Error(ErrorKind::bad_request, fmt::format("{}: {}", kInvalidJson, e.what()));
  }
  return request_from_json(std::move(doc), limits);
}

}  // namespace laya::api
