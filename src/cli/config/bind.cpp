#include "cli/config/bind.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace solscope::app::config {
namespace {

/// The CLI11 app that carries options of `scope`: the main app, or its subcommand.
auto app_of(CLI::App& app, Scope scope) -> CLI::App* {
  if (scope == Scope::Global) return &app;
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == scope_name(scope)) return sub;
  }
  return nullptr;
}

}  // namespace

auto require_option(Scope scope, std::string_view name) -> const OptionSpec& {
  if (const OptionSpec* spec = find_option(scope, name)) return *spec;
  throw std::logic_error("option " + std::string(name) + " of scope '" + std::string(scope_name(scope)) +
                         "' is not in the option table (src/cli/config/option_table.cpp)");
}

auto finish_option(CLI::Option& option, const OptionSpec& spec, Target target) -> CLI::Option* {
  const OptionSpec* row = &spec;
  const auto needs = [&spec](Target wanted, Target given, const char* type) {
    if (given != wanted) {
      throw std::logic_error("option " + std::string(spec.name) + " of scope '" +
                             std::string(scope_name(spec.scope)) + "' must be bound to " + type +
                             " (src/cli/config/bind.hpp)");
    }
  };
  switch (spec.kind) {
    case Kind::Duration:
      needs(Target::Int64, target, "std::int64_t ns or std::optional<std::int64_t>");
      // The value becomes its ns here, once; CLI11 then only reads the integer into the variable.
      option.transform(CLI::Validator(
          [row](std::string& value) {
            auto ns = parse_duration_value(*row, value);
            if (!ns) return ns.error().message;
            value = std::to_string(*ns);
            return std::string();
          },
          ""));
      option.type_name("TEXT");  // what the user writes ("100ms"), as --help and the man page say
      break;
    case Kind::DeviceList:
      needs(Target::DeviceList, target, "std::vector<std::uint32_t>");
      [[fallthrough]];
    case Kind::Number:
    case Kind::Integer:
      option.check(CLI::Validator([row](std::string& value) { return check_value(*row, value); }, ""));
      break;
    case Kind::Flag:
    case Kind::Text:
      break;
  }
  if (spec.from_env) option.envname(env_name(spec));
  return &option;
}

auto add_integer_or_word(CLI::App& app, Scope scope, std::string_view name, std::int64_t& number,
                         bool& word_given) -> CLI::Option* {
  const OptionSpec& spec = require_option(scope, name);
  if (spec.kind != Kind::Integer || spec.word.empty()) {
    throw std::logic_error("option " + std::string(name) + " is not an Integer row with a word");
  }
  auto store = [&spec, &number, &word_given](const std::string& text) {
    word_given = text == spec.word;
    if (!word_given) number = std::stoll(text);  // checked: finish_option
  };
  auto* option = app.add_option_function<std::string>(std::string(name), store, help_text(spec));
  option->type_name("INT|" + std::string(spec.word));
  return finish_option(*option, spec, Target::Other);
}

auto add_optional_integer(CLI::App& app, Scope scope, std::string_view name, std::int64_t& variable,
                          std::int64_t when_bare) -> CLI::Option* {
  const OptionSpec& spec = require_option(scope, name);
  if (spec.kind != Kind::Integer || !spec.value_optional) {
    throw std::logic_error("option " + std::string(name) + " is not an Integer row with an optional value");
  }
  // A bare option reaches the check and the callback as "" (CLI11 gives an option of 0-1 values its empty
  // default string).
  auto store = [&variable, when_bare](const std::string& text) {
    variable = text.empty() ? when_bare : std::stoll(text);
  };
  auto* option = app.add_option_function<std::string>(std::string(name), store, help_text(spec));
  option->expected(0, 1)->type_name("[INT]");
  const OptionSpec* row = &spec;
  option->check(CLI::Validator(
      [row](std::string& value) { return value.empty() ? std::string() : check_value(*row, value); }, ""));
  return option;
}

auto apply_config(CLI::App& app, const std::vector<ConfigValue>& values, std::string_view source_name)
    -> core::Result<void> {
  for (const ConfigValue& value : values) {
    CLI::App* owner = app_of(app, value.spec->scope);
    CLI::Option* option =
        owner == nullptr ? nullptr : owner->get_option_no_throw(std::string(value.spec->name));
    if (option == nullptr || option->count() > 0) continue;  // not bound here, or set above the file
    try {
      option->add_result(value.text);
      option->run_callback();
    } catch (const CLI::Error& e) {
      return core::fail(
          core::ErrorCode::InvalidArgument,
          fmt::format("{}:{}: key {}: {}", source_name, value.line, config_key(*value.spec), e.what()),
          "fix the value in the config file");
    }
  }
  return {};
}

auto apply_config_file(CLI::App& app, const std::string& given, const EnvLookup& env) -> core::Result<void> {
  const std::string path = config_file_path(given, env);
  if (path.empty()) return {};
  auto values = load_config_file(path);
  if (!values) return core::propagate(std::move(values));
  return apply_config(app, *values, path);
}

}  // namespace solscope::app::config
