#include "cli/config/config_file.hpp"

#include <cmath>
#include <system_error>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "cli/config/toml_guard.hpp"
#include "net/settings_file.hpp"

namespace solscope::app::config {
namespace {

constexpr std::string_view kFileName = "config.toml";
constexpr std::string_view kHint =
    "fix the file, or name another with --config FILE (README \"Config file\" lists the keys)";

/// Formats errors as "SOURCE:LINE: key K: what".
struct Errors {
  std::string_view source;
  [[nodiscard]] auto at(int line, std::string_view key, const std::string& what) const
      -> core::Unexpected<core::Error> {
    const std::string where = fmt::format("{}:{}: ", source, line);
    const std::string message = key.empty() ? where + what : where + "key " + std::string(key) + ": " + what;
    return core::fail(core::ErrorCode::InvalidArgument, message, std::string(kHint));
  }
};

auto line_of(const toml::node& node) -> int {
  return static_cast<int>(node.source().begin.line);
}

/// The value as the command line would carry it; nullopt when its TOML type does not fit the option.
auto value_text(const OptionSpec& spec, const toml::node& node) -> std::optional<std::string> {
  if (spec.kind == Kind::Flag) {
    if (const auto* b = node.as_boolean()) return b->get() ? "true" : "false";
    return std::nullopt;
  }
  if (const auto* s = node.as_string()) return s->get();
  if (spec.kind == Kind::Text || spec.kind == Kind::DeviceList) return std::nullopt;
  if (const auto* i = node.as_integer()) return std::to_string(i->get());
  if (const auto* f = node.as_floating_point()) {
    const double v = f->get();
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    return fmt::format("{}", v);
  }
  return std::nullopt;
}

auto expected_type(const OptionSpec& spec) -> std::string_view {
  switch (spec.kind) {
    case Kind::Flag:
      return "true or false";
    case Kind::Text:
    case Kind::DeviceList:
      return "a string in quotes";
    default:
      return "a number or a string in quotes";
  }
}

/// Checks and appends one key of `scope`'s table.
auto add_value(Scope scope, std::string_view key, const toml::node& node, const Errors& errors,
               std::vector<ConfigValue>& out) -> core::Result<void> {
  const std::string name = "--" + std::string(key);
  const OptionSpec* spec = find_option(scope, name);
  const std::string shown =
      scope == Scope::Global ? std::string(key) : std::string(scope_name(scope)) + "." + std::string(key);
  if (spec == nullptr || !spec->from_config) return errors.at(line_of(node), shown, "unknown key");
  auto text = value_text(*spec, node);
  if (!text) return errors.at(line_of(node), shown, "must be " + std::string(expected_type(*spec)));
  if (const std::string why = check_value(*spec, *text); !why.empty()) {
    return errors.at(line_of(node), shown, why);
  }
  out.push_back(ConfigValue{spec, std::move(*text), line_of(node)});
  return {};
}

auto scope_of_table(std::string_view name) -> std::optional<Scope> {
  for (Scope s : {Scope::Serve, Scope::Record, Scope::Replay, Scope::Ceiling, Scope::Check, Scope::Report,
                  Scope::Run, Scope::Import, Scope::Fleet}) {
    if (scope_name(s) == name) return s;
  }
  return std::nullopt;
}

}  // namespace

auto config_file_path(const std::string& given, const EnvLookup& env) -> std::string {
  if (!given.empty()) return given;
  const std::filesystem::path dir = config_dir(env);
  if (dir.empty()) return {};
  const std::filesystem::path file = dir / kFileName;
  std::error_code ec;
  return std::filesystem::is_regular_file(file, ec) ? file.string() : std::string();
}

auto parse_config(std::string_view toml_text, std::string_view source_name)
    -> core::Result<std::vector<ConfigValue>> {
  const Errors errors{source_name};
  if (const auto refused = refuse_unsafe_toml(toml_text)) return errors.at(refused->line, "", refused->what);
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& error) {
    return errors.at(static_cast<int>(error.source().begin.line), "", std::string(error.description()));
  }
  std::vector<ConfigValue> out;
  for (const auto& [key, node] : root) {
    if (const toml::table* table = node.as_table()) {
      const auto scope = scope_of_table(key.str());
      if (!scope)
        return errors.at(line_of(node), key.str(), "unknown table (use [serve], [record], [replay])");
      for (const auto& [sub_key, sub_node] : *table) {
        if (auto added = add_value(*scope, sub_key.str(), sub_node, errors, out); !added) {
          return core::propagate(std::move(added));
        }
      }
      continue;
    }
    if (auto added = add_value(Scope::Global, key.str(), node, errors, out); !added) {
      return core::propagate(std::move(added));
    }
  }
  return out;
}

auto load_config_file(const std::string& path) -> core::Result<std::vector<ConfigValue>> {
  auto text =
      net::read_settings_file(path, {.what = "config file", .max_bytes = kMaxConfigFileBytes, .hint = kHint});
  if (!text) {
    return core::fail(core::ErrorCode::InvalidArgument, text.error().message, text.error().hint);
  }
  return parse_config(*text, path);
}

}  // namespace solscope::app::config
