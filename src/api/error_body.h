// The official error body: FastAPI's HTTPException handler sends {"detail": "<text>"} (compact,
// non-ASCII kept).
#pragma once

#include <string>
#include <string_view>

#include "laya/errors.h"

namespace laya::api {

std::string error_body(std::string_view detail);
// The body for a laya::Error: its message as `detail`; internal errors become the official
// "inference failed" (never leak paths or device text to clients).
std::string error_body(const Error& error);

}  // namespace laya::api
