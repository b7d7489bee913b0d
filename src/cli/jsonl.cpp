#include "cli/jsonl.h"

#include <fmt/format.h>

#include <fstream>
#include <iostream>

#include "api/python_json.h"
#include "laya/errors.h"

namespace laya::cli {

std::size_t run_json_lines(const std::string& input,
                           const std::function<std::string(const std::string&, std::size_t)>& handle,
                           const std::function<std::string(const std::exception&, std::size_t)>& on_error,
                           JsonLinesOptions opts) {
  std::ifstream file;
  const bool from_stdin = input.empty() || input == "-";
  if (!from_stdin) {
    file.open(input, std::ios::binary);
    LAYA_REQUIRE(file.good(), ErrorKind::io, "--input {}: cannot open", input);
  }
  std::istream& in = from_stdin ? std::cin : file;
  std::ios::sync_with_stdio(false);
  std::string line, out;
  std::size_t lineno = 0, failed = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (opts.skip_blank && line.find_first_not_of(" \t") == std::string::npos) continue;
    try {
      out = handle(line, lineno);
    } catch (const std::exception& e) {
      ++failed;
      out = on_error(e, lineno);
      if (opts.echo_errors) std::cerr << out << "\n";
    }
    out.push_back('\n');
    std::cout << out;
    if (opts.flush_each_line) std::cout.flush();
  }
  std::cout.flush();
  return failed;
}

std::string status_error_line(const std::exception& e) {
  const auto* err = dynamic_cast<const Error*>(&e);
  std::string out = fmt::format("{{\"error\":{{\"status\":{},\"detail\":", http_status(err ? err->kind() : ErrorKind::internal));
  api::append_python_json_string(out, e.what());
  out += "}}";
  return out;
}

}  // namespace laya::cli
