// laya-engine: one binary, subcommands registered by src/cli/cmd_*.cpp.
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/command.h"
#include "common/log.h"
#include "laya/errors.h"

namespace laya::cli {
std::vector<CommandEntry>& command_registry() {
  static std::vector<CommandEntry> entries;
  return entries;
}
}  // namespace laya::cli

int main(int argc, char** argv) {
  using namespace laya::cli;
  const char* env_level = std::getenv("LAYA_LOG_LEVEL");
  laya::set_log_level(env_level ? env_level : "warn");

  CLI::App app{"laya-engine: a C++/CUDA inference server for the Laya decision model"};
  app.require_subcommand(1);
  app.set_version_flag("--version", LAYA_VERSION);
  std::string log_level;
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error|off (env LAYA_LOG_LEVEL)");

  std::vector<std::pair<CLI::App*, RunFn>> commands;
  for (auto& entry : command_registry()) {
    CLI::App* sub = app.add_subcommand(entry.name, entry.help);
    commands.emplace_back(sub, entry.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (!log_level.empty()) laya::set_log_level(log_level);
  try {
    for (auto& [sub, run] : commands) {
      if (sub->parsed()) return run();
    }
  } catch (const laya::Error& e) {
    std::fprintf(stderr, "laya-engine: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "laya-engine: unexpected error: %s\n", e.what());
    return 1;
  }
  return 2;
}
