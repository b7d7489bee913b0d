#include "runtime/model_pipeline.h"

#include "prompt/rows.h"

namespace laya::runtime {
namespace {

class ModelPrepared : public Prepared {
 public:
  ModelPrepared(api::DecisionRequest req, prompt::PackedRequest packed, const model::AgentConfig& config,
                const decode::ResponseOptions& response)
      : req_(std::move(req)), packed_(std::move(packed)), config_(config), response_(response) {}
  const engine::Batch& batch() const override { return packed_.batch; }
  std::string render(std::span<const float> logits, std::span<const float> act_logits, int32_t n_act) const override {
    return decode::decode_response(req_, packed_, logits, act_logits, n_act, config_, response_);
  }

 private:
  api::DecisionRequest req_;
  prompt::PackedRequest packed_;
  const model::AgentConfig& config_;
  const decode::ResponseOptions& response_;
};

}  // namespace

ModelPipeline::ModelPipeline(std::shared_ptr<const tokenizer::Tokenizer> tokenizer, tokenizer::SpecialTokens special,
                             model::AgentConfig config, api::RequestLimits limits, decode::ResponseOptions response)
    : tokenizer_(std::move(tokenizer)), special_(std::move(special)), config_(std::move(config)), limits_(limits),
      response_(std::move(response)) {}

std::unique_ptr<Prepared> ModelPipeline::prepare(std::string_view body) const {
  auto req = api::parse_request(body, limits_);
  auto packed = prompt::build_rows(req, *tokenizer_, special_, config_);
  return std::make_unique<ModelPrepared>(std::move(req), std::move(packed), config_, response_);
}

std::string_view warmup_request() {
  return R"({"state":"Warm-up: the customer asks for a refund of a duplicate charge.","questions":{)"
         R"("c":{"type":"choice","instructions":"Which team handles it?","criteria":{"billing":"payments","support":null}},)"
         R"("s":{"type":"score","instructions":"How urgent is it?","criteria":["low","medium","high"]},)"
         R"("n":{"type":"noul","instructions":"Is a refund requested?"}}})";
}

}  // namespace laya::runtime
