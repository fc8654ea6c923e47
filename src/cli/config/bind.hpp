// Binds rows of the option table to CLI11 options, and applies the config file under the command line and
// the environment. Precedence: command line > SOLSCOPE_* environment > config file > default.
//
//   CLI::App app;
//   config::add_option(app, config::Scope::Global, "--interval", common.interval_ns);
//   app.parse(argc, argv);                      // command line, then SOLSCOPE_INTERVAL (CLI11 envname)
//   auto applied = config::apply_config_file(app, config_arg, env);  // then the config file
//
// Every value, from whichever layer, passes the row's one parse and range rule (option_table.hpp) as it is
// bound, and the variable receives it typed: a Duration row as ns (std::int64_t, or std::optional of it where
// "not given" means "the command's own default"), a DeviceList row as the sorted GPU indices. Commands parse
// no option text again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/config/config_file.hpp"
#include "cli/config/option_table.hpp"
#include "core/result.hpp"
#include "runtime/options.hpp"

namespace solscope::app::config {

/// The row of `name` in `scope`. Throws std::logic_error when the table has none (a programming error, found
/// by the first run of any test).
[[nodiscard]] auto require_option(Scope scope, std::string_view name) -> const OptionSpec&;

/// The C++ type an option is bound to, as far as the row's kind cares.
enum class Target {
  Int64,       ///< std::int64_t or std::optional<std::int64_t>: ns for a Duration row (which needs it)
  DeviceList,  ///< std::vector<std::uint32_t>: what a DeviceList row needs
  Other,       ///< a flag, text or another number type
};

/// Gives `option` the row's rule and environment variable: a Duration row a transform that parses and
/// range-checks the text into ns (parse_duration_value); Number, Integer and DeviceList rows check_value().
/// Throws std::logic_error when `target` does not fit the row's kind (a duration bound to text, say).
auto finish_option(CLI::Option& option, const OptionSpec& spec, Target target) -> CLI::Option*;

/// Adds the row `name` of `scope` to `app` (the subcommand of `scope`, or the main app for Global), bound
/// to `variable`: a flag for Kind::Flag, else an option taking one value; help from help_text(). A Duration
/// row binds std::int64_t ns or std::optional<std::int64_t> (left empty unless some layer gives a value);
/// a DeviceList row binds std::vector<std::uint32_t>. `names` replaces the CLI11 name list when the option
/// also has a short name ("-o,--output").
template <typename T>
auto add_option(CLI::App& app, Scope scope, std::string_view name, T& variable, std::string names = {})
    -> CLI::Option* {
  const OptionSpec& spec = require_option(scope, name);
  if (names.empty()) names = std::string(name);
  if constexpr (std::is_same_v<T, bool>) {
    return finish_option(*app.add_flag(names, variable, help_text(spec)), spec, Target::Other);
  } else if constexpr (std::is_same_v<T, std::optional<std::int64_t>>) {
    auto store = [&variable](const std::int64_t& ns) { variable = ns; };
    return finish_option(*app.add_option_function<std::int64_t>(names, store, help_text(spec)), spec,
                         Target::Int64);
  } else if constexpr (std::is_same_v<T, std::vector<std::uint32_t>>) {
    auto store = [&variable](const std::string& text) {
      if (auto list = parse_device_list(text)) variable = std::move(*list);  // checked: finish_option
    };
    return finish_option(*app.add_option_function<std::string>(names, store, help_text(spec)), spec,
                         Target::DeviceList);
  } else {
    const Target target = std::is_same_v<T, std::int64_t> ? Target::Int64 : Target::Other;
    return finish_option(*app.add_option(names, variable, help_text(spec)), spec, target);
  }
}

/// Adds the Integer row `name` of `scope` that also takes the row's word (OptionSpec::word, e.g. "max"),
/// checked by check_value() like any number: a number goes to `number` (and clears `word_given`), the word
/// sets `word_given`.
auto add_integer_or_word(CLI::App& app, Scope scope, std::string_view name, std::int64_t& number,
                         bool& word_given) -> CLI::Option*;

/// Adds the Integer row `name` of `scope` (OptionSpec::value_optional) as an option whose value may be left
/// out: `--sweep` stores `when_bare` in `variable`, `--sweep 50` stores 50 (checked by check_value()). Give
/// the bare form last or before another option, as CLI11 takes a following number as its value.
auto add_optional_integer(CLI::App& app, Scope scope, std::string_view name, std::int64_t& variable,
                          std::int64_t when_bare) -> CLI::Option*;

/// Applies `values` to the options of `app` and its subcommands that neither the command line nor the
/// environment set (count() == 0), running their rule (finish_option) and storing them in the bound
/// variables. `source_name` names the file in errors: InvalidArgument "SOURCE:LINE: key K: why".
[[nodiscard]] auto apply_config(CLI::App& app, const std::vector<ConfigValue>& values,
                                std::string_view source_name) -> core::Result<void>;

/// Finds (config_file_path), reads and applies the config file after app.parse(). `given` is the --config
/// value (empty = the default path, when that file exists). Errors: load_config_file()'s and
/// apply_config()'s.
[[nodiscard]] auto apply_config_file(CLI::App& app, const std::string& given, const EnvLookup& env)
    -> core::Result<void>;

}  // namespace solscope::app::config
