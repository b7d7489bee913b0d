// Logging: spdlog to stderr, quiet (warn) by default; LAYA_LOG_LEVEL or --log-level raise it.
#pragma once

#include <spdlog/spdlog.h>

#include <string_view>

namespace laya {

// Sets the global level from a name (trace, debug, info, warn, error, off); unknown names keep warn.
void set_log_level(std::string_view name);

}  // namespace laya
