// `laya-engine version`: version, compiled backends, CUDA arches and library versions.
#include <fmt/format.h>
#include <spdlog/version.h>

#include "cli/command.h"
#include "cli/build_info.h"

namespace laya::cli {
namespace {

Registration reg("version", "Print version, backends, CUDA arches and library versions", [](CLI::App&) -> RunFn {
  return [] {
    fmt::print("{}\n", build_description());
    return 0;
  };
});

}  // namespace
}  // namespace laya::cli
