// The subcommands of the command line, one row each: its name, its line in --help, and the function that
// declares its options on its CLI11 app (rows of the option table through config::add_option, and its own)
// and names its handler. cli.cpp's run() builds the command line from these rows and runs the handler of the
// command given, knowing none of them.
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/cli.hpp"
#include "cli/commands.hpp"

namespace solscope::app {

/// The "Exit codes: ..." paragraph of --help: the main app's footer, and `check`'s (which exits 6).
inline constexpr const char* kExitCodesHelp =
    "Exit codes: 0 ok (also stopped by Ctrl-C), 1 failure, 2 bad command line, 3 no NVIDIA GPU or driver,\n"
    "4 GPU counters not permitted, 5 unreadable trace or recording (`import`),\n"
    "6 `solscope check` found a figure off (or a fault).\n";

/// The options of `solscope` itself, given before or after the subcommand; every command may read them.
struct SharedOptions {
  CommonOptions common;
  WorkloadOptions workloads;
};

/// What a command's declaration works with while the command line is built, before it is parsed.
struct CommandContext {
  CLI::App& root;            ///< `solscope`: the options of Scope::Global go here
  CLI::App& sub;             ///< the command's own subcommand
  SharedOptions& shared;     ///< filled by the parse; outlives the handler
  std::vector<char*>& args;  ///< the command line as CLI11 will see it (`run` takes `-- CMD ARGS` off it)
};

/// A declared command: its handler, which runs once the command line is parsed and the config file applied,
/// and returns the exit code (exit_codes.hpp); and an optional check of the parse, run before the config
/// file is read and before unmatched words are reported: an exit code to stop with (having said why on
/// `err`), or nullopt to go on.
struct DeclaredCommand {
  std::function<int(std::ostream& out, std::ostream& err)> run;
  std::function<std::optional<int>(std::ostream& err)> check_parse;
};

/// One subcommand.
struct CommandSpec {
  std::string_view name;         ///< "serve"
  std::string_view description;  ///< its line under "Subcommands:" in --help
  /// Adds the command's options to `context.sub` (and, for the default command, to `context.root`) and
  /// returns its handler, bound to them.
  DeclaredCommand (*declare)(CommandContext& context);
  bool is_default = false;  ///< runs when no subcommand is given (`top`)
};

/// Every subcommand, in --help order; exactly one is the default.
[[nodiscard]] auto command_table() -> std::span<const CommandSpec>;

}  // namespace solscope::app
