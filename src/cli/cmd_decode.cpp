// `laya-engine decode --model DIR`: a request plus raw model outputs -> the official response JSON.
// stdin, one JSON object per line: {"request": {...}, "logits": [[...], ...], "act_logits": [[a, b], ...]}
// (`logits`: one list per question, at least as long as its option count; padding beyond is ignored).
// Needs only the checkpoint's configs and tokenizer. Errors print {"error":{"status","detail"}}; exit 1.
#include <memory>
#include <string>

#include "api/json.h"
#include "api/request.h"
#include "checkpoint/demo.h"
#include "cli/command.h"
#include "cli/jsonl.h"
#include "decode/answers.h"
#include "laya/errors.h"
#include "prompt/assets.h"
#include "prompt/rows.h"

namespace laya::cli {
namespace {

struct DecodeArgs {
  std::string model, input;
  bool legacy_usage = false, legend_as_text = false;
};

Registration reg("decode", "Turn a request plus raw logits (stdin JSON lines) into the response JSON",
                 [](CLI::App& sub) -> RunFn {
  auto a = std::make_shared<DecodeArgs>();
  sub.add_option("--model", a->model, "checkpoint directory (or 'demo')")->required();
  sub.add_option("--input", a->input, "read from FILE instead of stdin");
  sub.add_flag("--legacy-usage", a->legacy_usage, "usage with input_tokens/output_tokens only (laya 0.3.20)");
  sub.add_flag("--legend-as-text", a->legend_as_text, "render structured score legends as text (laya 0.4.0)");
  return [a] {
    auto assets = prompt::load_prompt_assets(checkpoint::resolve_model_dir(a->model));
    decode::ResponseOptions opts;
    opts.extended_usage = !a->legacy_usage;
    opts.legend_as_text = a->legend_as_text;
    auto decode_line = [&](const std::string& line, size_t lineno) {
      api::Json doc;
      try {
        doc = api::parse_json(line);
      } catch (const api::JsonParseError& e) {
        LAYA_FAIL(ErrorKind::bad_request, "line {}: {}", lineno, e.what());
      }
      const api::Json* request = doc.find("request");
      const api::Json* logits = doc.find("logits");
      const api::Json* act = doc.find("act_logits");
      if (!request || !logits || !logits->is_array() || !act || !act->is_array())
        LAYA_FAIL(ErrorKind::bad_request, "line {}: expected {{\"request\", \"logits\", \"act_logits\"}}", lineno);
      api::DecisionRequest req = api::request_from_json(*request);
      prompt::PackedRequest p = prompt::build_rows(req, *assets.tokenizer, assets.special, assets.config.agent);
      if (logits->size() != req.questions.size() || act->size() != req.questions.size())
        LAYA_FAIL(ErrorKind::bad_request, "line {}: {} questions but {} logits rows and {} act_logits rows", lineno,
                  req.questions.size(), logits->size(), act->size());
      std::vector<float> lg, ac;
      int32_t n_act = -1;
      for (size_t r = 0; r < req.questions.size(); ++r) {
        const auto& row = logits->items()[r];
        size_t k = req.questions[r].n_options();
        if (!row.is_array() || row.size() < k)
          LAYA_FAIL(ErrorKind::bad_request, "line {}: logits row {} needs {} numbers", lineno, r, k);
        for (size_t i = 0; i < k; ++i) {
          if (!row.items()[i].is_number()) LAYA_FAIL(ErrorKind::bad_request, "line {}: logits[{}][{}] is not a number", lineno, r, i);
          lg.push_back(static_cast<float>(row.items()[i].as_double()));
        }
        const auto& arow = act->items()[r];
        if (!arow.is_array() || arow.size() == 0 || (n_act >= 0 && arow.size() != static_cast<size_t>(n_act)))
          LAYA_FAIL(ErrorKind::bad_request, "line {}: act_logits rows must be equally long lists", lineno);
        n_act = static_cast<int32_t>(arow.size());
        for (const auto& v : arow.items()) {
          if (!v.is_number()) LAYA_FAIL(ErrorKind::bad_request, "line {}: act_logits[{}] holds a non-number", lineno, r);
          ac.push_back(static_cast<float>(v.as_double()));
        }
      }
      return decode::decode_response(req, p, lg, ac, n_act < 0 ? 2 : n_act, assets.config.agent, opts);
    };
    return run_json_lines(a->input, decode_line, [](const std::exception& e, size_t) { return status_error_line(e); }) ? 1 : 0;
  };
});

}  // namespace
}  // namespace laya::cli
