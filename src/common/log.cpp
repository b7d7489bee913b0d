#include "common/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace laya {

void set_log_level(std::string_view name) {
  static const bool installed = [] {
    auto logger = spdlog::stderr_color_mt("laya");
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::warn);
    return true;
  }();
  (void)installed;
  auto level = spdlog::level::from_str(std::string(name));
  if (level == spdlog::level::off && name != "off") level = spdlog::level::warn;
  spdlog::set_level(level);
}

}  // namespace laya
