#include "laya/errors.h"

namespace laya {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::bad_request: return "bad_request";
    case ErrorKind::unauthorized: return "unauthorized";
    case ErrorKind::not_found: return "not_found";
    case ErrorKind::too_large: return "too_large";
    case ErrorKind::unsupported_media: return "unsupported_media";
    case ErrorKind::unprocessable: return "unprocessable";
    case ErrorKind::overloaded: return "overloaded";
    case ErrorKind::deadline_exceeded: return "deadline_exceeded";
    case ErrorKind::unavailable: return "unavailable";
    case ErrorKind::invalid_checkpoint: return "invalid_checkpoint";
    case ErrorKind::io: return "io";
    case ErrorKind::internal: return "internal";
  }
  return "internal";
}

int http_status(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::bad_request: return 400;
    case ErrorKind::unauthorized: return 401;
    case ErrorKind::not_found: return 404;
    case ErrorKind::too_large: return 413;
    case ErrorKind::unsupported_media: return 415;
    case ErrorKind::unprocessable: return 422;
    case ErrorKind::overloaded: return 429;
    case ErrorKind::deadline_exceeded: return 504;
    case ErrorKind::unavailable: return 503;
    case ErrorKind::invalid_checkpoint:
    case ErrorKind::io:
    case ErrorKind::internal: return 500;
  }
  return 500;
}

namespace detail {
void throw_internal(const char* file, int line, const char* expr, const std::string& message) {
  throw Error(ErrorKind::internal, fmt::format("{}:{}: internal error: `{}` failed: {}", file, line, expr, message));
}
}  // namespace detail

}  // namespace laya
