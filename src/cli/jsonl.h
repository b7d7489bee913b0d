// The JSON-lines loop shared by the stdin-driven subcommands (tokenize, pack, decode, decide): one
// input line in, one output line out, a failing line answered in place so the run goes on.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>

namespace laya::cli {

struct JsonLinesOptions {
  bool skip_blank = true;      // whitespace-only lines produce no output line
  bool echo_errors = true;     // error lines also go to stderr
  bool flush_each_line = false;  // for callers that answer interactively (decide)
};

// Reads `input` (a file path; empty or "-" means stdin) line by line, a trailing '\r' removed. Each
// line's `handle(line, lineno)` result is printed on stdout; when it throws, `on_error(e, lineno)`
// is printed instead. Returns the number of failed lines. An unreadable file throws laya::Error.
std::size_t run_json_lines(const std::string& input,
                           const std::function<std::string(const std::string& line, std::size_t lineno)>& handle,
                           const std::function<std::string(const std::exception& e, std::size_t lineno)>& on_error,
                           JsonLinesOptions opts = {});

// {"error":{"status":N,"detail":"..."}} for a laya::Error (other exceptions: status 500).
std::string status_error_line(const std::exception& e);

}  // namespace laya::cli
