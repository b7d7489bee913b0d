// ModelPipeline: the real Pipeline — api::parse_request -> prompt::build_rows on the way in,
// decode::decode_response on the way out — exactly the stages `laya-engine decide` runs, so the
// HTTP answers are byte-identical to the CLI's.
#pragma once

#include <memory>
#include <string_view>

#include "api/request.h"
#include "decode/answers.h"
#include "model/config.h"
#include "runtime/pipeline.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/tokenizer.h"

namespace laya::runtime {

class ModelPipeline : public Pipeline {
 public:
  ModelPipeline(std::shared_ptr<const tokenizer::Tokenizer> tokenizer, tokenizer::SpecialTokens special,
                model::AgentConfig config, api::RequestLimits limits = {}, decode::ResponseOptions response = {});
  std::unique_ptr<Prepared> prepare(std::string_view body) const override;

 private:
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer_;
  tokenizer::SpecialTokens special_;
  model::AgentConfig config_;
  api::RequestLimits limits_;
  decode::ResponseOptions response_;
};

// A small valid request that exercises every question type (start-up warm-up and health checks).
std::string_view warmup_request();

}  // namespace laya::runtime
