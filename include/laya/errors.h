// laya::Error — the one exception type of the project.
//
// Every failure a user can cause (bad request, corrupt checkpoint, overload) is thrown as a
// laya::Error whose kind the server maps to an HTTP status and the CLI to an exit code.
// Nothing calls abort() on bad input.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace laya {

enum class ErrorKind {
  bad_request,         // 400: malformed JSON, missing fields
  unauthorized,        // 401
  not_found,           // 404
  too_large,           // 413: body, state or question-count limits
  unsupported_media,   // 415: wrong Content-Type
  unprocessable,       // 422: a question that cannot be answered (options exceed budget, bad type)
  overloaded,          // 429: admission queue full
  deadline_exceeded,   // 504: request deadline passed before it ran
  unavailable,         // 503: not ready, draining, engine recovering
  invalid_checkpoint,  // a checkpoint file or config that fails validation
  io,                  // a file that cannot be read or written
  internal,            // a bug or a device failure: 500
};

std::string_view to_string(ErrorKind kind);
int http_status(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

namespace detail {
[[noreturn]] void throw_internal(const char* file, int line, const char* expr, const std::string& message);
}  // namespace detail

}  // namespace laya

// Throws a laya::Error of the given kind with a fmt-formatted, user-facing message.
#define LAYA_FAIL(kind, ...) throw ::laya::Error((kind), ::fmt::format(__VA_ARGS__))

// Like LAYA_FAIL, but only when `cond` is false.
#define LAYA_REQUIRE(cond, kind, ...)   \
  do {                                  \
    if (!(cond)) LAYA_FAIL(kind, __VA_ARGS__); \
  } while (0)

// An internal invariant: on failure throws ErrorKind::internal with file, line and expression.
#define LAYA_ASSERT(cond, ...)                                                                  \
  do {                                                                                          \
    if (!(cond)) ::laya::detail::throw_internal(__FILE__, __LINE__, #cond, ::fmt::format(__VA_ARGS__)); \
  } while (0)
