// A guard in front of toml++ for the config file: text that toml++ 3.3 (Debian 12's) cannot take safely is
// refused before it reads it. Both cases were found by fuzz/config_toml_fuzz.cpp; in a build with NDEBUG
// each is undefined behaviour (TOML_UNREACHABLE, TOML_ASSERT_ASSUME), in a debug build an abort:
// - a character outside ASCII outside a string or comment (`interval = é`):
// is_non_ascii_horizontal_whitespace
//   reaches its unreachable default. TOML 1.0 allows such characters only in strings and comments anyway;
// - a table header that does not start with a key (`[@`, `[[[1]]]`): parse_key()'s precondition
//   (marzer/tomlplusplus pull request #301, fixed after 3.3).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace solscope::app::config {

/// What the guard refuses: the 1-based line and what is wrong there.
struct TomlGuardRefusal {
  int line = 0;
  std::string what;
};

/// The first thing in `text` that toml++ must not see, or nullopt. Only string, comment and table-header
/// delimiters are read; whatever else is wrong is left to the TOML parser.
[[nodiscard]] auto refuse_unsafe_toml(std::string_view text) -> std::optional<TomlGuardRefusal>;

}  // namespace solscope::app::config
