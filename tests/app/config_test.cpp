// The config layer (src/cli/config): the option table drives help, checks, SOLSCOPE_* variables and the
// config file; precedence is command line > environment > config file > default.
#include <stdlib.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/config/bind.hpp"
#include "cli/config/config_file.hpp"
#include "cli/config/option_table.hpp"
#include "runtime/exit_codes.hpp"
#include "support/run_cli.hpp"

namespace solscope::app::config {
namespace {

using testing::run_cli;
using testing::RunResult;

/// What must come before an option of `scope` so that the option's value is the only thing wrong.
auto prefix(Scope scope) -> std::vector<std::string> {
  switch (scope) {
    case Scope::Global:  // a replay of a missing file: exit 5 at once should the value ever pass
      return {"replay", "/nonexistent/never.sqlite"};
    case Scope::Serve:
      return {"serve"};
    case Scope::Record:
      return {"record", "-o", "/nonexistent/never.sqlite"};
    case Scope::Replay:
      return {"replay", "/nonexistent/never.sqlite"};
    case Scope::Ceiling:
      return {"ceiling", "--gpu", "H100", "--model", "/nonexistent"};
    case Scope::Check:  // no driver here: exit 3 at once should the value ever pass
      return {"check"};
    case Scope::Report:
      return {"report", "/nonexistent/never.sqlite"};
    case Scope::Run:
      return {"run"};    // without `--` CMD: exit 2 should the value ever pass
    case Scope::Import:  // an -o in a missing directory: exit 2, other message, should the value ever pass
      return {"import", "/nonexistent/never.prom", "-o", "/nonexistent/never.sqlite"};
    case Scope::Fleet:  // nothing listens on port 1: a quick failure should the value ever pass
      return {"fleet", "--prometheus", "http://127.0.0.1:1"};
    case Scope::Profile:  // nothing listens on port 1: a quick failure should the value ever pass
      return {"profile", "pause", "--url", "http://127.0.0.1:1"};
  }
  return {};
}

auto is_numeric(const OptionSpec& spec) -> bool {
  return spec.kind == Kind::Number || spec.kind == Kind::Integer || spec.kind == Kind::Duration;
}

/// Scratch directory as XDG_CONFIG_HOME (no user config file leaks in) and SOLSCOPE_* variables unset.
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("solscope-config-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    ::setenv("XDG_CONFIG_HOME", dir_.c_str(), 1);
    for (const OptionSpec& spec : option_table()) ::unsetenv(env_name(spec).c_str());
  }
  void TearDown() override {
    for (const OptionSpec& spec : option_table()) ::unsetenv(env_name(spec).c_str());
    ::unsetenv("XDG_CONFIG_HOME");
    std::filesystem::remove_all(dir_);
  }
  auto write(const std::string& name, const std::string& text) const -> std::string {
    const auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  std::filesystem::path dir_;
};

constexpr std::int64_t kMs = 1'000'000;

const std::vector<std::string> kBadNumbers{"nan", "NaN", "-nan", "inf", "-inf", "infinity", "-1"};

TEST_F(ConfigTest, every_numeric_option_refuses_nan_infinity_and_negatives_on_the_command_line) {
  int checked = 0;
  for (const OptionSpec& spec : option_table()) {
    if (!is_numeric(spec)) continue;
    for (const std::string& bad : kBadNumbers) {
      auto args = prefix(spec.scope);
      if (spec.value_optional) {  // "--sweep -inf" would read -inf as an option: attach the value
        args.push_back(std::string(spec.name) + "=" + bad);
      } else {
        args.push_back(std::string(spec.name));
        args.push_back(bad);
      }
      const RunResult r = run_cli(args);
      EXPECT_EQ(r.code, kExitUsage) << spec.name << " " << bad << ": " << r.err;
      const std::string shown = spec.kind == Kind::Duration ? "invalid duration '" + bad + "'" : bad + " is ";
      EXPECT_NE(r.err.find(std::string(spec.name) + ": " + shown), std::string::npos)
          << spec.name << " " << bad << ": " << r.err;
      ++checked;
    }
  }
  // --interval, --duration, three --speed, --max-clients, --client-queue and six ceiling numbers at least.
  EXPECT_GE(checked, 13 * static_cast<int>(kBadNumbers.size()));
}

TEST_F(ConfigTest, every_numeric_option_refuses_nan_infinity_and_negatives_from_env_and_config_file) {
  for (const OptionSpec& spec : option_table()) {
    if (!is_numeric(spec)) continue;
    for (const std::string& bad : kBadNumbers) {
      if (spec.from_env) {
        ::setenv(env_name(spec).c_str(), bad.c_str(), 1);
        const RunResult r = run_cli(prefix(spec.scope));
        ::unsetenv(env_name(spec).c_str());
        EXPECT_EQ(r.code, kExitUsage) << env_name(spec) << "=" << bad << ": " << r.err;
        EXPECT_NE(r.err.find(bad), std::string::npos) << env_name(spec) << "=" << bad << ": " << r.err;
      }
      if (spec.from_config) {
        const std::string table =
            spec.scope == Scope::Global ? "" : "[" + std::string(scope_name(spec.scope)) + "]\n";
        const std::string file = write(
            "bad.toml", "# solscope\n" + table + std::string(spec.name.substr(2)) + " = \"" + bad + "\"\n");
        auto args = prefix(spec.scope);
        args.insert(args.begin(), {"--config", file});
        const RunResult r = run_cli(args);
        const int line = spec.scope == Scope::Global ? 2 : 3;
        EXPECT_EQ(r.code, kExitUsage) << config_key(spec) << " = " << bad << ": " << r.err;
        EXPECT_NE(r.err.find(file + ":" + std::to_string(line) + ": key " + config_key(spec) + ": "),
                  std::string::npos)
            << r.err;
      }
    }
  }
}

TEST_F(ConfigTest, toml_nan_and_inf_floats_are_refused_with_file_and_line) {
  auto parsed = parse_config("interval = \"50ms\"\n\n[serve]\nspeed = nan\n", "cfg.toml");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message,
            "cfg.toml:4: key serve.speed: nan is not a finite number (give 0 to 1000)");
  parsed = parse_config("[replay]\nspeed = -inf\n", "cfg.toml");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message,
            "cfg.toml:2: key replay.speed: -inf is not a finite number (give 0 to 1000)");
}

TEST_F(ConfigTest, bad_config_files_name_the_file_line_and_key) {
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases{
      {"interval = \"50ms\"\nintervall = \"5ms\"\n", "cfg.toml:2: key intervall: unknown key"},
      {"json = \"yes\"\n", "cfg.toml:1: key json: must be true or false"},
      {"[serve]\nmax-clients = 0\n", "cfg.toml:2: key serve.max-clients: 0 is out of range (give 1 to 4096)"},
      {"[serve]\nmax-clients = 1.5\n",
       "cfg.toml:2: key serve.max-clients: 1.5 is not a whole number (give 1 to 4096)"},
      {"devices = \"0,x\"\n", "cfg.toml:1: key devices: invalid device 'x'"},
      {"[ceiling]\ntp = 2\n", "cfg.toml:2: key ceiling.tp: unknown key"},
      {"[nope]\nx = 1\n", "cfg.toml:1: key nope: unknown table (use [serve], [record], [replay])"},
      {"\n\ninterval = \n", "cfg.toml:3: "},
  };
  for (const Case& c : cases) {
    auto parsed = parse_config(c.text, "cfg.toml");
    ASSERT_FALSE(parsed) << c.text;
    EXPECT_EQ(parsed.error().code, core::ErrorCode::InvalidArgument);
    EXPECT_EQ(parsed.error().message.substr(0, c.message.size()), c.message) << parsed.error().message;
  }
}

TEST_F(ConfigTest, text_that_toml_plus_plus_cannot_take_safely_is_refused_with_its_line) {
  // Found by fuzz/config_toml_fuzz.cpp: toml++ 3.3 reached TOML_UNREACHABLE on `interval = é` and broke
  // parse_key()'s precondition on `[@` (an abort in a debug build, undefined behaviour with NDEBUG).
  auto non_ascii = parse_config("interval = \"50ms\"\ninterval = \xc3\xa9ms\n", "cfg.toml");
  ASSERT_FALSE(non_ascii);
  EXPECT_NE(non_ascii.error().message.find("cfg.toml:2: a character outside ASCII"), std::string::npos)
      << non_ascii.error().message;
  for (const char* header : {"[@x]\n", "[[[1]]]\n", "  [ =\n", "[["}) {
    auto bad = parse_config(header, "cfg.toml");
    ASSERT_FALSE(bad) << header;
    EXPECT_NE(bad.error().message.find("cfg.toml:1: a table header must name a table"), std::string::npos)
        << bad.error().message;
  }
  // Outside ASCII in strings and comments is TOML, and passes the guard.
  auto fine = parse_config("# caf\xc3\xa9\n[serve]\nhostname = \"n\xc3\xa9ud-1\" # \xc3\xa9\n", "cfg.toml");
  ASSERT_TRUE(fine) << fine.error().message;
  EXPECT_EQ(fine->at(0).text, "n\xc3\xa9ud-1");
}

TEST_F(ConfigTest, a_bad_config_file_stops_the_command_with_exit_2) {
  const std::string file = write("config.toml", "devices = \"0\"\n[serve]\nlisten = 9741\n");
  const RunResult r = run_cli({"--config", file, "replay", "/nonexistent.sqlite"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find(file + ":3: key serve.listen: must be a string in quotes"), std::string::npos)
      << r.err;
  // The default path ($XDG_CONFIG_HOME/solscope/config.toml) is read too.
  std::filesystem::create_directories(dir_ / "solscope");
  write("solscope/config.toml", "interval = \"0.1ms\"\n");
  const RunResult d = run_cli({"replay", "/nonexistent.sqlite"});
  EXPECT_EQ(d.code, kExitUsage);
  EXPECT_NE(d.err.find("solscope/config.toml:1: key interval: 0.1ms is out of range (give 1ms to 1m)"),
            std::string::npos)
      << d.err;
  const RunResult missing = run_cli({"--config", (dir_ / "absent.toml").string(), "devices"});
  EXPECT_EQ(missing.code, kExitUsage);
  EXPECT_NE(missing.err.find("cannot read config file"), std::string::npos) << missing.err;
}

TEST_F(ConfigTest, a_fifo_or_a_device_as_config_file_is_refused_at_once_with_exit_2) {
  // Before the fix --config /dev/zero read until memory ran out and a FIFO without a writer blocked forever,
  // both deaf to Ctrl-C; the config file now gets the checks of a token file (net::read_settings_file).
  const std::string fifo = (dir_ / "fifo.toml").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto begin = std::chrono::steady_clock::now();
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    const RunResult r = run_cli({"--config", path, "devices"});
    EXPECT_EQ(r.code, kExitUsage) << path;
    EXPECT_NE(r.err.find("config file " + path + " is not a regular file"), std::string::npos) << r.err;
  }
  const std::string huge = write("huge.toml", "# " + std::string(kMaxConfigFileBytes, 'x') + "\n");
  const RunResult big = run_cli({"--config", huge, "devices"});
  EXPECT_EQ(big.code, kExitUsage);
  EXPECT_NE(big.err.find("config file " + huge + " holds"), std::string::npos) << big.err;
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(5));
  const std::string empty = write("empty.toml", "");
  EXPECT_TRUE(load_config_file(empty)) << "an empty config file sets nothing";
}

TEST_F(ConfigTest, a_url_with_user_info_is_refused_with_exit_2_and_the_password_is_never_shown) {
  // Before the fix the authority was split at its last ':' and fleet exited 1 with "Prometheus at
  // http://[admin:s3cret@127.0.0.1]:1 did not answer" (the password in the message and in --json's source).
  for (const char* url : {"http://admin:s3cret@127.0.0.1:1", "http://admin:s3cret@127.0.0.1"}) {
    const RunResult r = run_cli({"fleet", "--prometheus", url, "--json"});
    EXPECT_EQ(r.code, kExitUsage) << r.err;
    EXPECT_EQ((r.out + r.err).find("s3cret"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.err.find("--prometheus-token-file"), std::string::npos) << r.err;
  }
}

/// The value of --interval and of serve's --max-clients after the layers, as cli.cpp binds them.
struct Layered {
  std::optional<std::int64_t> interval_ns;
  std::size_t max_clients = 64;
};
auto layered(std::vector<std::string> args, const std::string& config_path) -> Layered {
  Layered v;
  CLI::App app;
  add_option(app, Scope::Global, "--interval", v.interval_ns);
  CLI::App* serve = app.add_subcommand("serve");
  add_option(*serve, Scope::Serve, "--max-clients", v.max_clients);
  args.insert(args.begin(), "solscope");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  auto applied = apply_config_file(app, config_path, [](std::string_view) { return std::nullopt; });
  EXPECT_TRUE(applied) << applied.error().describe();
  return v;
}

TEST_F(ConfigTest, command_line_beats_environment_beats_config_file_beats_default) {
  EXPECT_EQ(layered({"serve"}, "").interval_ns, std::nullopt);
  EXPECT_EQ(layered({"serve"}, "").max_clients, 64U);
  const std::string file = write("layers.toml", "interval = \"200ms\"\n[serve]\nmax-clients = 128\n");
  EXPECT_EQ(layered({"serve"}, file).interval_ns, 200 * kMs);
  EXPECT_EQ(layered({"serve"}, file).max_clients, 128U);
  ::setenv("SOLSCOPE_INTERVAL", "300ms", 1);
  ::setenv("SOLSCOPE_MAX_CLIENTS", "256", 1);
  EXPECT_EQ(layered({"serve"}, file).interval_ns, 300 * kMs);
  EXPECT_EQ(layered({"serve"}, file).max_clients, 256U);
  EXPECT_EQ(layered({"--interval", "400ms", "serve", "--max-clients", "512"}, file).interval_ns, 400 * kMs);
  EXPECT_EQ(layered({"--interval", "400ms", "serve", "--max-clients", "512"}, file).max_clients, 512U);
}

TEST_F(ConfigTest, pm_policy_is_yield_hold_or_never_from_every_layer) {
  for (const std::string word : {"yield", "hold", "never"}) {
    auto args = prefix(Scope::Global);
    args.insert(args.begin(), {"--pm-policy", word});
    const RunResult r = run_cli(args);
    EXPECT_NE(r.code, kExitUsage) << word << ": " << r.err;  // the missing trace's exit code
  }
  auto args = prefix(Scope::Global);
  args.insert(args.begin(), {"--pm-policy", "sometimes"});
  RunResult r = run_cli(args);
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("'sometimes' is not yield, hold or never"), std::string::npos) << r.err;
  ::setenv("SOLSCOPE_PM_POLICY", "sometimes", 1);
  r = run_cli(prefix(Scope::Global));
  ::unsetenv("SOLSCOPE_PM_POLICY");
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  const std::string file = write("policy.toml", "# solscope\npm-policy = \"sometimes\"\n");
  args = prefix(Scope::Global);
  args.insert(args.begin(), {"--config", file});
  r = run_cli(args);
  EXPECT_EQ(r.code, kExitUsage) << r.err;
  EXPECT_NE(r.err.find(file + ":2: key pm-policy: "), std::string::npos) << r.err;
}

TEST_F(ConfigTest, durations_and_device_lists_reach_the_command_typed_from_every_layer) {
  std::optional<std::int64_t> interval_ns;
  std::vector<std::uint32_t> devices;
  std::int64_t since_ns = 7;  // a plain ns variable keeps its default until a layer gives a value
  std::int64_t refresh_ns = 9;
  CLI::App app;
  add_option(app, Scope::Global, "--interval", interval_ns);
  add_option(app, Scope::Global, "--devices", devices);
  CLI::App* fleet = app.add_subcommand("fleet");
  add_option(*fleet, Scope::Fleet, "--since", since_ns);
  add_option(*fleet, Scope::Fleet, "--refresh", refresh_ns);
  std::vector<std::string> args{"solscope", "--interval", "0.5s", "--devices", "3,0-1", "fleet"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  const std::string file = write("typed.toml", "[fleet]\nsince = \"2h\"\n");
  auto applied = apply_config_file(app, file, [](std::string_view) { return std::nullopt; });
  ASSERT_TRUE(applied) << applied.error().describe();
  EXPECT_EQ(interval_ns, 500 * kMs);
  EXPECT_EQ(devices, (std::vector<std::uint32_t>{0, 1, 3}));
  EXPECT_EQ(since_ns, 2 * 3600 * 1000 * kMs);
  EXPECT_EQ(refresh_ns, 9);
}

TEST_F(ConfigTest, a_duration_bound_to_text_is_a_programming_error) {
  CLI::App app;
  std::string interval;
  EXPECT_THROW(add_option(app, Scope::Global, "--interval", interval), std::logic_error);
  std::string devices;
  EXPECT_THROW(add_option(app, Scope::Global, "--devices", devices), std::logic_error);
}

TEST_F(ConfigTest, typed_options_still_read_as_text_in_help) {
  EXPECT_NE(run_cli({"--help"}).out.find("--interval TEXT"), std::string::npos);
  EXPECT_NE(run_cli({"--help"}).out.find("--devices TEXT"), std::string::npos);
  EXPECT_NE(run_cli({"fleet", "--help"}).out.find("--since TEXT"), std::string::npos);
  EXPECT_NE(run_cli({"record", "--help"}).out.find("--duration TEXT"), std::string::npos);
}

TEST_F(ConfigTest, one_duration_rule_for_every_layer) {
  const OptionSpec* interval = find_option(Scope::Global, "--interval");
  ASSERT_NE(interval, nullptr);
  EXPECT_EQ(parse_duration_value(*interval, "10ms").value(), 10 * kMs);
  EXPECT_EQ(parse_duration_value(*interval, "60s").value(), 60'000 * kMs);
  auto bad = parse_duration_value(*interval, "2m");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message, check_value(*interval, "2m"));
  EXPECT_EQ(check_value(*interval, "fast"), parse_duration_value(*interval, "fast").error().message);
  EXPECT_EQ(format_duration(100 * kMs), "100ms");
  EXPECT_EQ(format_duration(60'000 * kMs), "1m");
  EXPECT_EQ(format_duration(1500 * kMs), "1500ms");
  EXPECT_EQ(format_duration(0), "0s");
}

TEST_F(ConfigTest, fleet_and_serve_state_the_same_prometheus_facts) {
  for (std::string_view name :
       {"--prometheus", "--selector", "--since", "--prometheus-token-file", "--prometheus-ca"}) {
    const OptionSpec* fleet = find_option(Scope::Fleet, name);
    const OptionSpec* serve = find_option(Scope::Serve, name);
    ASSERT_NE(fleet, nullptr) << name;
    ASSERT_NE(serve, nullptr) << name;
    EXPECT_EQ(fleet->kind, serve->kind) << name;
    EXPECT_EQ(fleet->default_text, serve->default_text) << name;
    EXPECT_EQ(fleet->min, serve->min) << name;
    EXPECT_EQ(fleet->max, serve->max) << name;
    EXPECT_EQ(fleet->from_env, serve->from_env) << name;
    EXPECT_EQ(fleet->from_config, serve->from_config) << name;
  }
}

TEST_F(ConfigTest, help_of_every_scope_is_generated_from_the_table) {
  for (const OptionSpec& spec : option_table()) {
    std::vector<std::string> args;
    if (spec.scope != Scope::Global) args.emplace_back(scope_name(spec.scope));
    args.emplace_back("--help");
    const RunResult r = run_cli(args);
    EXPECT_EQ(r.code, 0);
    EXPECT_NE(r.out.find(help_text(spec)), std::string::npos) << spec.name << " in:\n" << r.out;
    if (spec.from_env) {
      EXPECT_NE(r.out.find("Env:" + env_name(spec)), std::string::npos) << spec.name;
    }
  }
}

TEST_F(ConfigTest, env_names_and_keys_derive_from_the_option_name) {
  const OptionSpec* token = find_option(Scope::Serve, "--token-file");
  ASSERT_NE(token, nullptr);
  EXPECT_EQ(env_name(*token), "SOLSCOPE_TOKEN_FILE");
  EXPECT_EQ(config_key(*token), "serve.token-file");
  const OptionSpec* interval = find_option(Scope::Global, "--interval");
  ASSERT_NE(interval, nullptr);
  EXPECT_EQ(env_name(*interval), "SOLSCOPE_INTERVAL");
  EXPECT_EQ(config_key(*interval), "interval");
  EXPECT_EQ(check_value(*interval, "10ms"), "");
  EXPECT_EQ(check_value(*interval, "2m"), "2m is out of range (give 1ms to 1m)");
}

}  // namespace
}  // namespace solscope::app::config
