// Binds rows of the option table to CLI11 options, and applies the config file under the command line and
// the environment. Precedence: command line > SOLSCOPE_* environment > config file > default.
//
//   CLI::App app;
//   config::add_option(app, config::Scope::Global, "--interval", common.interval);
//   app.parse(argc, argv);                      // command line, then SOLSCOPE_INTERVAL (CLI11 envname)
//   auto applied = config::apply_config_file(app, config_arg, env);  // then the config file
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/config/config_file.hpp"
#include "cli/config/option_table.hpp"
#include "core/result.hpp"

namespace solscope::app::config {

/// The row of `name` in `scope`. Throws std::logic_error when the table has none (a programming error, found
/// by the first run of any test).
[[nodiscard]] auto require_option(Scope scope, std::string_view name) -> const OptionSpec&;

/// Gives `option` the row's value check (Duration, Number, Integer, DeviceList) and environment variable.
auto finish_option(CLI::Option& option, const OptionSpec& spec) -> CLI::Option*;

/// Adds the row `name` of `scope` to `app` (the subcommand of `scope`, or the main app for Global), bound
/// to `variable`: a flag for Kind::Flag, else an option taking one value; help from help_text(). `names`
/// replaces the CLI11 name list when the option also has a short name ("-o,--output").
template <typename T>
auto add_option(CLI::App& app, Scope scope, std::string_view name, T& variable, std::string names = {})
    -> CLI::Option* {
  const OptionSpec& spec = require_option(scope, name);
  if (names.empty()) names = std::string(name);
  CLI::Option* option = nullptr;
  if constexpr (std::is_same_v<T, bool>) {
    option = app.add_flag(names, variable, help_text(spec));
  } else {
    option = app.add_option(names, variable, help_text(spec));
  }
  return finish_option(*option, spec);
}

/// Applies `values` to the options of `app` and its subcommands that neither the command line nor the
/// environment set (count() == 0), running their checks and storing them in the bound variables.
/// `source_name` names the file in errors: InvalidArgument "SOURCE:LINE: key K: why".
[[nodiscard]] auto apply_config(CLI::App& app, const std::vector<ConfigValue>& values,
                                std::string_view source_name) -> core::Result<void>;

/// Finds (config_file_path), reads and applies the config file after app.parse(). `given` is the --config
/// value (empty = the default path, when that file exists). Errors: load_config_file()'s and
/// apply_config()'s.
[[nodiscard]] auto apply_config_file(CLI::App& app, const std::string& given, const EnvLookup& env)
    -> core::Result<void>;

}  // namespace solscope::app::config
