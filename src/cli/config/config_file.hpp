// The config file: TOML (toml++) holding defaults for the options of the option table that have
// `from_config`: top-level keys for the global options, one table per subcommand for its own:
//
//   interval = "50ms"
//   devices = "0,2"
//   [serve]
//   listen = "0.0.0.0:9741"
//   token-file = "/etc/solscope/token"
//   max-clients = 128
//
// Precedence: command line > SOLSCOPE_* environment > config file > default (bind.hpp applies it).
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/config/option_table.hpp"
#include "core/result.hpp"
#include "runtime/environment.hpp"

namespace solscope::app::config {

/// One value from the config file, checked against its row of the option table.
struct ConfigValue {
  const OptionSpec* spec = nullptr;
  std::string text;  ///< as the command line would carry it ("50ms", "128", "true")
  int line = 0;      ///< 1-based line of the key in the file
};

/// The config file to read: `given` (--config / SOLSCOPE_CONFIG) when not empty; else
/// config_dir()/config.toml when that file exists; else empty (no config file).
[[nodiscard]] auto config_file_path(const std::string& given, const EnvLookup& env) -> std::string;

/// Parses config text; `source_name` names it in messages. Every key must be a row of the option table with
/// from_config, of its type (a boolean for flags, a string or number for the others) and pass check_value(),
/// the one rule that the same option's value passes on the command line or in the environment (bind.hpp
/// applies the values through it).
/// Errors: InvalidArgument "SOURCE:LINE: key K: what is wrong" (TOML syntax, unknown key, wrong type, bad
/// value; text that toml++ cannot take safely, refused before it reads it: toml_guard.hpp), with a hint; the
/// caller exits 2.
[[nodiscard]] auto parse_config(std::string_view toml_text, std::string_view source_name)
    -> core::Result<std::vector<ConfigValue>>;

/// Largest config file read: 1 MiB (the option table's keys fit in a few KiB).
inline constexpr std::size_t kMaxConfigFileBytes = 1U << 20;

/// Reads and parses the file `path`, through net::read_settings_file (a regular file of at most
/// kMaxConfigFileBytes; a FIFO or a device such as /dev/zero is refused at once, never waited on or read
/// without end). Errors: InvalidArgument "cannot read config file PATH: why", "config file PATH is not a
/// regular file", "config file PATH holds N bytes", and parse_config()'s.
[[nodiscard]] auto load_config_file(const std::string& path) -> core::Result<std::vector<ConfigValue>>;

}  // namespace solscope::app::config
