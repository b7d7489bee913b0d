// Subcommand registry of the laya-engine binary.
//
// Each src/cli/cmd_<name>.cpp registers itself with a static Registration; main() builds the
// CLI11 app from the registry. A command's setup adds its options to the subcommand and returns
// the function to run after parsing (its return value is the exit code).
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace laya::cli {

using RunFn = std::function<int()>;
using SetupFn = std::function<RunFn(CLI::App& subcommand)>;

struct CommandEntry {
  std::string name;
  std::string help;
  SetupFn setup;
};

std::vector<CommandEntry>& command_registry();

struct Registration {
  Registration(std::string name, std::string help, SetupFn setup) {
    command_registry().push_back({std::move(name), std::move(help), std::move(setup)});
  }
};

}  // namespace laya::cli
