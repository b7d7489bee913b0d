// Raw outputs -> the official response JSON, exactly like laya 0.3.20's `Agent._decode_answers`
// and `predict_batch` (temperature bucket, float32 softmax, first max wins, entropy confidence,
// answer_confidence, act_probability, Python round(x, 4) and float repr, Python dict key order),
// written compactly like Starlette's JSONResponse.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/json.h"
#include "api/request.h"
#include "model/config.h"
#include "prompt/rows.h"

namespace laya::decode {

struct ResponseOptions {
  // Additive usage fields of laya 0.4.0 (state_tokens, state_tokens_dropped, truncated,
  // truncated_questions). false: 0.3.20's {input_tokens, output_tokens} only.
  bool extended_usage = true;
  // laya 0.4.0 writes score `legend` values through render_criterion (structured criteria become
  // JSON text); 0.3.20 returns the original values. Default: 0.3.20.
  bool legend_as_text = false;
  // The Router's `routing` block ({"model","repo","reason","detection","workflow"}), appended last
  // when set (the official HTTP server answers through the Router).
  std::optional<api::Json> routing;
};

// One question's decoded answer in numbers (before JSON), for callers that want values.
struct Answer {
  int32_t winner = 0;
  std::vector<float> probs;   // float32 softmax
  double score = 0.0;         // score: expected level (float64), unrounded
  double confidence = 0.0;    // unrounded
  double answer_confidence = 0.0;
  double act_probability = 0.0;
};

// Temperature as applied by the official decoder for a question with k options.
double temperature_for(const model::AgentConfig& config, model::QType type, size_t k);

Answer decode_answer(model::QType type, std::span<const float> logits, std::span<const float> act_logits,
                     const model::AgentConfig& config);

// `logits`: this request's marker logits in row order (Batch::markers order); `act_logits`: rows*n_act.
// Throws laya::Error(internal) on a count mismatch or non-finite values.
std::string decode_response(const api::DecisionRequest& request, const prompt::PackedRequest& packed,
                            std::span<const float> logits, std::span<const float> act_logits, int32_t n_act,
                            const model::AgentConfig& config, const ResponseOptions& options = {});

}  // namespace laya::decode
