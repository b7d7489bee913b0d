// Rows: one token sequence per question, exactly like laya 0.3.20's `Agent._encode_state` +
// `common.build_sequence`:
//   [CLS] "<type> question: <instructions>" [SEP] ([MASK] " <option>")* [SEP] <state> [SEP]
// with the 48-token option cap, the head budget rule, the mask token's text replaced by a space in
// user text, the state tokenised once, conversation (list) states keeping their newest tokens, and the
// row cut to max_len. Markers past max_len are a 422 naming the question.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/request.h"
#include "engine/batch.h"
#include "model/config.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace laya::prompt {

// input_tokens/output_tokens are laya 0.3.20's; the others are the additive fields of laya 0.4.0
// (state_tokens: tokens of the whole state; state_tokens_dropped: the most any question lost;
// truncated_questions: ids of questions whose row could not hold the whole state, in order).
struct Usage {
  int64_t input_tokens = 0, output_tokens = 0, state_tokens = 0, state_tokens_dropped = 0;
  bool truncated = false;
  std::vector<std::string> truncated_questions;
};

struct PackedRequest {
  engine::Batch batch;  // one row per question, in request order
  Usage usage;
};

struct RowLimits {
  int32_t max_len = 512;
  int32_t head_max_len = 192;
  static RowLimits from(const model::AgentConfig& cfg) { return {cfg.max_len, cfg.head_max_len}; }
};

PackedRequest build_rows(const api::DecisionRequest& request, const tokenizer::Tokenizer& tok,
                         const tokenizer::SpecialTokens& special, const model::AgentConfig& config);
PackedRequest build_rows(const api::DecisionRequest& request, const tokenizer::Tokenizer& tok,
                         const tokenizer::SpecialTokens& special, const RowLimits& limits);

// `s` with every occurrence of `mask` replaced by one space (Python str.replace).
std::string replace_mask(std::string_view s, std::string_view mask);

// The usage object as the official response writes it (key order of laya 0.4.0; with
// `extended=false` only 0.3.20's input_tokens/output_tokens).
std::string usage_json(const Usage& usage, bool extended = true);

}  // namespace laya::prompt
