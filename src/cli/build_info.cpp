#include "cli/build_info.h"

#include <fmt/format.h>
#include <spdlog/version.h>

#ifdef LAYA_WITH_CUDA
#include "backends/cuda/build_info.h"
#endif

namespace laya::cli {

std::string build_description() {
  std::string out = fmt::format("laya-engine {}\n", LAYA_VERSION);
#ifdef LAYA_WITH_CUDA
  out += "backends: cpu (fp32), cuda\n";
  out += laya::cuda::build_description();
#else
  out += "backends: cpu (fp32)\n";
#endif
  out += fmt::format("compiler: {} {}\n", "g++", __VERSION__);
  out += fmt::format("libraries: fmt {}.{}.{}, spdlog {}.{}.{}\n", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                     FMT_VERSION % 100, SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH);
  return out;
}

}  // namespace laya::cli
