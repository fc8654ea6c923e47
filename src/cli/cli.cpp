#include "cli/cli.hpp"
#include "cli/man_page.hpp"

#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/ceiling/ceiling_command.hpp"
#include "cli/check/check_command.hpp"
#include "cli/cli_commands.hpp"
#include "cli/commands.hpp"
#include "cli/config/bind.hpp"
#include "cli/fleet/fleet_command.hpp"
#include "cli/import/import_command.hpp"
#include "cli/live/top_command.hpp"
#include "cli/report/report_command.hpp"
#include "cli/serve/serve_command.hpp"
#include "runtime/environment.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "runtime/options.hpp"
#include "runtime/signals.hpp"
#include "runtime/source_factory.hpp"

namespace solscope::app {
namespace {

constexpr const char* kDescription =
    "solscope: how close each GPU is to its speed of light (SOL).\n"
    "Compute SOL = busiest compute pipe, Memory SOL = busiest memory path, from the GPU's hardware "
    "counters,\n"
    "shown next to the classic 'GPU utilization' that only says a kernel was running.";

/// Binds --pm-policy (a Text row of the option table) to its enum: "yield", "hold" or "never"
/// (core::parse_pm_policy), whichever layer gives it; any other word is a usage error naming the three.
void add_pm_policy_option(CLI::App& app, core::PmPolicy& policy) {
  const config::OptionSpec& spec = config::require_option(config::Scope::Global, "--pm-policy");
  auto store = [&policy](const std::string& text) { policy = core::parse_pm_policy(text).value_or(policy); };
  auto* option = app.add_option_function<std::string>(std::string(spec.name), store, config::help_text(spec));
  option->type_name("yield|hold|never");
  option->check(CLI::Validator(
      [](std::string& value) {
        return core::parse_pm_policy(value) ? std::string() : "'" + value + "' is not yield, hold or never";
      },
      ""));
  (void)config::finish_option(*option, spec, config::Target::Other);
}

/// Adds the options every command shares.
void add_common_options(CLI::App& app, CommonOptions& common, std::string& config_file) {
  using config::Scope;
  config::add_option(app, Scope::Global, "--config", config_file);
  config::add_option(app, Scope::Global, "--devices", common.devices);
  config::add_option(app, Scope::Global, "--interval", common.interval_ns);
  config::add_option(app, Scope::Global, "--json", common.json);
  config::add_option(app, Scope::Global, "--replay", common.replay);
  config::add_option(app, Scope::Global, "--dcgm-exporter", common.dcgm_exporter);
  config::add_option(app, Scope::Global, "--dcgm-exporter-token-file", common.dcgm_exporter_token_file);
  config::add_option(app, Scope::Global, "--dcgm-exporter-ca", common.dcgm_exporter_ca);
  add_pm_policy_option(app, common.pm_policy);
}

void add_workload_options(CLI::App& app, WorkloadOptions& workloads) {
  config::add_option(app, config::Scope::Global, "--workloads", workloads.file);
  config::add_option(app, config::Scope::Global, "--no-workloads", workloads.disabled);
  config::add_option(app, config::Scope::Global, "--job-mapping-dir", workloads.job_mapping_dir);
}

/// Names a user could have meant: the subcommands and the long options of the app and its chosen subcommand.
auto known_words(const CLI::App& app, bool options) -> std::vector<std::string> {
  std::vector<std::string> words;
  if (!options) {
    for (const CLI::App* sub : app.get_subcommands({})) words.push_back(sub->get_name());
    return words;
  }
  std::vector<const CLI::App*> scopes{&app};
  for (const CLI::App* sub : app.get_subcommands()) scopes.push_back(sub);
  for (const CLI::App* scope : scopes) {
    for (const CLI::Option* opt : scope->get_options()) {
      for (const auto& name : opt->get_lnames()) words.push_back("--" + name);
    }
  }
  return words;
}

/// Reports words CLI11 left unmatched, with a suggestion. Returns true when there were any.
auto report_extras(const CLI::App& app, std::ostream& err) -> bool {
  std::vector<std::string> extras = app.remaining();
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const auto& e : sub->remaining()) extras.push_back(e);
  }
  if (extras.empty()) return false;
  const std::string& word = extras.front();
  const bool is_option = word.starts_with("-");
  const std::string what = is_option ? "unknown option '" + word + "'" : "unknown command '" + word + "'";
  const std::string guess = closest_match(word.substr(0, word.find('=')), known_words(app, is_option));
  const std::string hint =
      guess.empty() ? "run `solscope --help` for the list" : "did you mean '" + guess + "'?";
  print_error(err, core::Error{core::ErrorCode::InvalidArgument, what, hint});
  return true;
}

/// A subcommand as declared by its row of the command table.
struct Declared {
  const CommandSpec* spec = nullptr;
  CLI::App* sub = nullptr;
  DeclaredCommand command;
};

/// The parsed subcommand, else the default one.
auto chosen(const std::vector<Declared>& commands) -> const Declared& {
  const Declared* fallback = &commands.front();
  for (const Declared& d : commands) {
    if (d.sub->parsed()) return d;
    if (d.spec->is_default) fallback = &d;
  }
  return *fallback;
}

}  // namespace

auto run(int argc, char** argv, std::ostream& out, std::ostream& err) -> int {
  std::vector<char*> args(argv, argv + argc);
  CLI::App app{kDescription, "solscope"};
  app.footer(kExitCodesHelp);
  app.set_version_flag("--version", std::string("solscope ") + SOLSCOPE_VERSION);
  bool man_page = false;  // --man: the manual page (man_page.hpp); hidden from --help
  app.add_flag("--man", man_page, "print the manual page (roff)")->group("");
  app.allow_extras();
  app.require_subcommand(0, 1);
  SharedOptions shared;
  std::string config_file;
  add_common_options(app, shared.common, config_file);
  add_workload_options(app, shared.workloads);
  std::vector<Declared> commands;
  for (const CommandSpec& spec : command_table()) {
    CLI::App* sub = app.add_subcommand(std::string(spec.name), std::string(spec.description));
    sub->allow_extras();
    sub->fallthrough();
    CommandContext context{app, *sub, shared, args};
    commands.push_back(Declared{&spec, sub, spec.declare(context)});
  }

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    print_error(err,
                core::Error{core::ErrorCode::InvalidArgument, e.what(), "run `solscope --help` for usage"});
    return kExitUsage;
  }
  const DeclaredCommand& command = chosen(commands).command;
  if (command.check_parse) {
    if (const auto stop = command.check_parse(err)) return *stop;
  }
  if (man_page) {
    out << render_man_page(app, std::string("solscope ") + SOLSCOPE_VERSION);
    return kExitOk;
  }
  if (report_extras(app, err)) return kExitUsage;
  if (auto applied = config::apply_config_file(app, config_file, config::process_environment()); !applied) {
    print_error(err, applied.error());
    return kExitUsage;
  }
  install_stop_signals();
  return command.run(out, err);
}

}  // namespace solscope::app
