// `laya-engine tokenize --tokenizer PATH`: one JSON string per stdin line -> one JSON array of ids per
// stdout line (no special tokens added). A line that is not a JSON string, or text that is not valid
// UTF-8, prints {"error": "..."} on that line and the command exits 1 at the end.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/command.h"
#include "laya/errors.h"
#include "tokenizer/tokenizer.h"

namespace laya::cli {
namespace {

Registration reg("tokenize", "Tokenize stdin (one JSON string per line) to JSON id arrays", [](CLI::App& sub) -> RunFn {
  auto path = std::make_shared<std::string>();
  sub.add_option("--tokenizer", *path, "tokenizer.json, or a folder containing one")->required();
  return [path] {
    const auto tok = tokenizer::Tokenizer::from_file(*path);
    std::ios::sync_with_stdio(false);
    std::string line, out;
    std::vector<int32_t> ids;
    int rc = 0;
    std::size_t lineno = 0;
    while (std::getline(std::cin, line)) {
      ++lineno;
      out.clear();
      try {
        const auto j = nlohmann::json::parse(line);
        if (!j.is_string()) LAYA_FAIL(ErrorKind::bad_request, "line {}: expected a JSON string", lineno);
        ids.clear();
        tok->encode_append(j.get_ref<const std::string&>(), ids);
        out.push_back('[');
        for (std::size_t i = 0; i < ids.size(); ++i) {
          if (i) out.push_back(',');
          out += std::to_string(ids[i]);
        }
        out.push_back(']');
      } catch (const std::exception& e) {
        out = nlohmann::json{{"error", fmt::format("line {}: {}", lineno, e.what())}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        std::cerr << out << "\n";
        rc = 1;
      }
      out.push_back('\n');
      std::cout << out;
    }
    std::cout.flush();
    return rc;
  };
});

}  // namespace
}  // namespace laya::cli
