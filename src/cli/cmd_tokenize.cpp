// `laya-engine tokenize --tokenizer PATH`: one JSON string per stdin line -> one JSON array of ids per
// stdout line (no special tokens added). A line that is not a JSON string, or text that is not valid
// UTF-8, prints {"error": "..."} on that line and the command exits 1 at the end.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/jsonl.h"
#include "laya/errors.h"
#include "tokenizer/tokenizer.h"

namespace laya::cli {
namespace {

Registration reg("tokenize", "Tokenize stdin (one JSON string per line) to JSON id arrays", [](CLI::App& sub) -> RunFn {
  auto path = std::make_shared<std::string>();
  sub.add_option("--tokenizer", *path, "tokenizer.json, or a folder containing one")->required();
  return [path] {
    const auto tok = tokenizer::Tokenizer::from_file(*path);
    std::vector<int32_t> ids;
    auto tokenize = [&](const std::string& line, std::size_t lineno) {
      const auto j = nlohmann::json::parse(line);
      if (!j.is_string()) LAYA_FAIL(ErrorKind::bad_request, "line {}: expected a JSON string", lineno);
      ids.clear();
      tok->encode_append(j.get_ref<const std::string&>(), ids);
      std::string out = "[";
      for (std::size_t i = 0; i < ids.size(); ++i) {
        if (i) out.push_back(',');
        out += std::to_string(ids[i]);
      }
      out.push_back(']');
      return out;
    };
    auto error_line = [](const std::exception& e, std::size_t lineno) {
      return nlohmann::json{{"error", fmt::format("line {}: {}", lineno, e.what())}}.dump(
          -1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    // Blank lines are not skipped: every input line has its output line.
    return run_json_lines("", tokenize, error_line, {.skip_blank = false}) ? 1 : 0;
  };
});

}  // namespace
}  // namespace laya::cli
