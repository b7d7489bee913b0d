// `laya-engine pack --model DIR`: requests (one JSON object per stdin line) -> the token rows laya
// 0.3.20 builds for them, one line each:
//   {"rows":[{"ids":[...],"markers":[...],"qtype":n},...],"usage":{...}}
// Needs only the checkpoint's configs and tokenizer (no weights are read). A request the official
// server would reject prints {"error":{"status":N,"detail":"..."}} on its line; exit code 1 at the end.
#include <memory>
#include <string>

#include "api/request.h"
#include "checkpoint/demo.h"
#include "cli/command.h"
#include "cli/jsonl.h"
#include "laya/errors.h"
#include "prompt/assets.h"
#include "prompt/rows.h"

namespace laya::cli {
namespace {

struct PackArgs {
  std::string model, input;
  int32_t max_len = 0, head_max_len = 0;
};

Registration reg("pack", "Print the token rows of each request (stdin JSON lines) as JSON", [](CLI::App& sub) -> RunFn {
  auto a = std::make_shared<PackArgs>();
  sub.add_option("--model", a->model, "checkpoint directory (or 'demo')")->required();
  sub.add_option("--input", a->input, "read requests from FILE instead of stdin");
  sub.add_option("--max-len", a->max_len, "override max_len of rl_agent_config.json");
  sub.add_option("--head-max-len", a->head_max_len, "override head_max_len of rl_agent_config.json");
  return [a] {
    auto assets = prompt::load_prompt_assets(checkpoint::resolve_model_dir(a->model));
    prompt::RowLimits limits = prompt::RowLimits::from(assets.config.agent);
    if (a->max_len > 0) limits.max_len = a->max_len;
    if (a->head_max_len > 0) limits.head_max_len = a->head_max_len;
    auto pack = [&](const std::string& line, size_t) {
      api::DecisionRequest req = api::parse_request(line);
      prompt::PackedRequest p = prompt::build_rows(req, *assets.tokenizer, assets.special, limits);
      std::string out = "{\"rows\":[";
      const auto& b = p.batch;
      for (int32_t r = 0; r < b.rows(); ++r) {
        if (r) out.push_back(',');
        out += "{\"ids\":[";
        for (int32_t i = b.row_offsets[r]; i < b.row_offsets[r + 1]; ++i) {
          if (i != b.row_offsets[r]) out.push_back(',');
          out += std::to_string(b.token_ids[static_cast<size_t>(i)]);
        }
        out += "],\"markers\":[";
        for (int32_t i = b.marker_offsets[r]; i < b.marker_offsets[r + 1]; ++i) {
          if (i != b.marker_offsets[r]) out.push_back(',');
          out += std::to_string(b.markers[static_cast<size_t>(i)]);
        }
        out += fmt::format("],\"qtype\":{}}}", b.qtypes[static_cast<size_t>(r)]);
      }
      out += "],\"usage\":" + prompt::usage_json(p.usage) + "}";
      return out;
    };
    return run_json_lines(a->input, pack, [](const std::exception& e, size_t) { return status_error_line(e); }) ? 1 : 0;
  };
});

}  // namespace
}  // namespace laya::cli
