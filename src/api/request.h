// A decision request: parsed, validated and normalised exactly like laya 0.3.20's serve.py
// (`systemone`, `_check_request_limits`) and Agent (`_check_question`, `_to_internal`,
// `render_options`), with the official status codes and error texts.
//
// Decisions where the official server has no good answer (docs/api.md):
// - `state` missing or null: 400 (0.3.20 would render it as the text "null").
// - Unknown top-level fields (task, lang_guess, max_len, head_max_len, ...) are ignored like
//   0.3.20 does; `model` and `lang` are kept when they are strings.
// - Non-string labels in a choice criteria list are rendered with Python str() (0.3.20 crashes
//   with a 500); list/object labels are a 422.
// - NaN/Infinity/1e400, lone surrogate escapes, nesting deeper than 128 and duplicate top-level
//   keys are 400s (Python's json.loads accepts or crashes on them).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/json.h"
#include "model/config.h"

namespace laya::api {

struct Question {
  std::string id;
  model::QType type = model::QType::choice;
  Json instructions_raw;
  std::string instructions;               // rendered: a string as is, else json.dumps(ensure_ascii=False)
  std::vector<std::string> option_texts;  // render_options() output (mask token not yet replaced)
  std::vector<std::string> option_keys;   // choice: labels; score: "0".."k-1"; noul: "false","true"
  std::vector<Json> legend;               // score: the original criteria values
  size_t n_options() const { return option_texts.size(); }
};

struct DecisionRequest {
  Json state;
  std::string state_text;  // serialize_state(): a string as is, else json.dumps(ensure_ascii=False)
  bool state_is_list = false;  // conversation: keep the newest state tokens
  std::vector<Question> questions;
  std::optional<std::string> model, lang;
};

struct RequestLimits {
  size_t max_questions = 64;
  size_t max_state_chars = 50000;
  size_t max_body_bytes = 2u << 20;
  int max_depth = 128;
};

// Throws laya::Error: bad_request (400), too_large (413) or unprocessable (422) with the official
// `detail` text as its message.
DecisionRequest parse_request(std::string_view body, const RequestLimits& limits = {});

// The same from an already parsed body (for batch endpoints and the CLI); `body` must be the parsed
// request object.
DecisionRequest request_from_json(Json body, const RequestLimits& limits = {});

// Validation of one question definition, exactly `Agent._check_question` + `_to_internal` +
// `render_options`; throws unprocessable with the official text.
Question parse_question(const std::string& id, const Json& definition);

std::string_view qtype_name(model::QType t);

}  // namespace laya::api
