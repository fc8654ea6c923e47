// The table of solscope's configurable and numeric options: one row per option with its name, where else it
// can come from (a SOLSCOPE_* environment variable, a key of the config file), its kind, default, accepted
// range and help. The CLI11 binding (bind.hpp), the help text, the value checks and the config file reader
// (config_file.hpp) are all generated from it, so that an option is described once. A value is parsed and
// range-checked here only (parse_duration_value, check_value), whichever layer gives it; commands receive
// it typed (a duration as ns).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/duration.hpp"
#include "core/result.hpp"

namespace solscope::app::config {

/// Where an option is given on the command line: before any subcommand (and inherited by them), or after the
/// named subcommand. The config file has one TOML table per subcommand scope ([serve], [record], ...).
enum class Scope { Global, Serve, Record, Replay, Ceiling, Check, Report, Run, Import, Fleet, Profile };

/// How an option's value is read and checked.
enum class Kind {
  Text,        ///< free text (a path, an address): no check here
  Flag,        ///< on/off; true/false in the config file
  Duration,    ///< core::parse_duration_ns grammar; min/max in ns; bound as ns (bind.hpp)
  Number,      ///< a finite decimal number within [min, max]; NaN, infinity and negatives refused
  Integer,     ///< a whole decimal number within [min, max]
  DeviceList,  ///< GPU indices "0,2" or "0-3" (parse_device_list); bound as the sorted indices
};

/// One option. `min`/`max` apply to Duration (ns), Number and Integer.
struct OptionSpec {
  std::string_view name;  ///< long name with dashes, e.g. "--interval"
  Scope scope = Scope::Global;
  Kind kind = Kind::Text;
  std::string help;          ///< what it does, without default or range (help_text() adds them)
  std::string default_text;  ///< the default as a user reads it; empty = none
  double min = 0.0;
  double max = 0.0;
  bool from_env = false;     ///< also read from env_name() (below the command line)
  bool from_config = false;  ///< also read from the config file as config_key() (below the environment)
  /// Number and Integer rows: a word accepted in place of a number ("max" for `ceiling --concurrency`);
  /// empty = none. check_value() passes it, the range text names it, and the command gives it its meaning.
  std::string_view word{};
  /// The value may be left out (`--sweep` alone takes the default; config::add_optional_integer). A value
  /// that begins with '-' and a letter then reads as an option of its own: give it attached, `--sweep=-x`.
  bool value_optional = false;
};

/// The word of `ceiling --concurrency` (OptionSpec::word) that asks for the concurrency with the most output
/// tokens/s that fits in memory.
inline constexpr std::string_view kConcurrencyMax = "max";

/// Every row, in help order.
[[nodiscard]] auto option_table() -> std::span<const OptionSpec>;

/// The row of `name` in `scope`; nullptr when the table has none.
[[nodiscard]] auto find_option(Scope scope, std::string_view name) -> const OptionSpec*;

/// "" for Global, else the subcommand's name ("serve", "record", ...).
[[nodiscard]] auto scope_name(Scope scope) -> std::string_view;

/// SOLSCOPE_ and the name in upper case with '_' for '-': "--token-file" -> "SOLSCOPE_TOKEN_FILE".
[[nodiscard]] auto env_name(const OptionSpec& spec) -> std::string;

/// The key in the config file: the name without dashes, under its subcommand's table: "interval",
/// "serve.max-clients".
[[nodiscard]] auto config_key(const OptionSpec& spec) -> std::string;

/// The help line: spec.help, then "(default X; R; config K)" with what applies, R being the accepted range
/// ("0 to 1000", "1ms to 1m"). CLI11 adds "(Env:SOLSCOPE_X)" from the option's envname.
[[nodiscard]] auto help_text(const OptionSpec& spec) -> std::string;

/// A duration as the user would write it (core::format_duration).
using core::format_duration;

/// Parses a Duration row's value (command line, environment or config file) and checks it against the row's
/// range: the one rule for every layer. Errors: InvalidArgument whose message says why, e.g. "invalid
/// duration 'nan' (give 1ms to 1m, e.g. 100ms, 0.5s, 5m)" or "2m is out of range (give 1ms to 1m)".
[[nodiscard]] auto parse_duration_value(const OptionSpec& spec, std::string_view text)
    -> core::Result<std::int64_t>;

/// Checks one value given as text (command line, environment or config file). Returns "" when it is good,
/// else why not, e.g. "nan is not a finite number (give 0 to 1000)". Never throws.
[[nodiscard]] auto check_value(const OptionSpec& spec, std::string_view text) -> std::string;

}  // namespace solscope::app::config
