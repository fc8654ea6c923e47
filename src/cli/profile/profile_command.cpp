#include "cli/profile/profile_command.hpp"

#include <pwd.h>
#include <unistd.h>

#include <array>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/config/bind.hpp"
#include "cli/profile/profile_view.hpp"
#include "net/remote_http.hpp"
#include "net/token_file.hpp"
#include "runtime/exit_codes.hpp"
#include "runtime/messages.hpp"
#include "wire/json_fields.hpp"
#include "wire/json_text.hpp"

namespace solscope::app {
namespace {

constexpr const char* kStatusPath = "/api/v1/profiling";
constexpr const char* kPausePath = "/api/v1/profiling/pause";
constexpr const char* kResumePath = "/api/v1/profiling/resume";
/// The daemon answers at once: a request that takes longer is a daemon in trouble.
constexpr double kConnectTimeoutS = 2.0;
constexpr double kTotalTimeoutS = 10.0;
/// The daemon's answers are a few KiB.
constexpr std::size_t kMaxAnswerBytes = 1u << 20;

auto usage(std::string what, std::string hint) -> Failure {
  return Failure{core::Error{core::ErrorCode::InvalidArgument, std::move(what), std::move(hint)}, kExitUsage};
}

/// Who asks, for the daemon's status: "user@host".
auto asker() -> std::string {
  std::string user = "unknown";
  passwd entry{};
  passwd* found = nullptr;
  std::array<char, 4096> buffer{};
  if (::getpwuid_r(::geteuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found != nullptr &&
      found->pw_name != nullptr) {
    user = found->pw_name;
  }
  return user + "@" + server::local_hostname();
}

auto pause_body(const ProfileArgs& args) -> std::string {
  nlohmann::ordered_json body{{"by", asker()}};
  if (args.for_ns) {
    constexpr std::int64_t kNsPerS = 1'000'000'000;
    if (*args.for_ns % kNsPerS == 0) {
      body["for_s"] = *args.for_ns / kNsPerS;
    } else {
      body["for_s"] = static_cast<double>(*args.for_ns) / static_cast<double>(kNsPerS);
    }
  }
  if (!args.devices.empty()) body["devices"] = args.devices;
  return wire::json_text(body);
}

/// The error a daemon's answer of `status` means, with its JSON {"error", "hint"} when it sent one.
auto answer_failure(const net::HttpResponse& response, const std::string& url) -> Failure {
  const auto json = nlohmann::json::parse(response.body, nullptr, false);
  const std::string said = wire::string_field(json, "error");
  const std::string hint = wire::string_field(json, "hint");
  const std::string at = "the daemon at " + url;
  switch (response.status) {
    case 400:
      return Failure{
          core::Error{core::ErrorCode::InvalidArgument, at + " refused the request: " + said, hint},
          kExitUsage};
    case 401:
      return Failure{core::Error{core::ErrorCode::PermissionDenied, at + " requires a bearer token",
                                 "give --token-file FILE (the file of the daemon's --token-file), or set "
                                 "SOLSCOPE_TOKEN_FILE"},
                     kExitFailure};
    case 403:
      return Failure{core::Error{core::ErrorCode::PermissionDenied, at + " refused the request: " + said,
                                 hint.empty() ? "check --token-file: it must hold the daemon's token" : hint},
                     kExitFailure};
    case 404:
      return Failure{
          core::Error{core::ErrorCode::NotFound,
                      at + " offers no PM pause" + (said.empty() ? "" : ": " + said),
                      hint.empty() ? "it may be an older solscope: upgrade it, or check --url" : hint},
          kExitFailure};
    default:
      return Failure{core::Error{core::ErrorCode::Unavailable,
                                 at + " answered HTTP " + std::to_string(response.status) +
                                     (said.empty() ? "" : ": " + said),
                                 hint},
                     kExitFailure};
  }
}

/// The daemon's answer: its text as sent and the document read from it.
struct Answer {
  std::string text;
  nlohmann::json json;
};

/// Sends the action's request; the daemon's JSON document, or why not.
auto ask_daemon(const ProfileArgs& args) -> Outcome<Answer> {
  net::RemoteEndpoint endpoint{.url = args.url,
                               .connect_timeout_s = kConnectTimeoutS,
                               .total_timeout_s = kTotalTimeoutS,
                               .max_body_bytes = kMaxAnswerBytes};
  if (!args.token_file.empty()) {
    auto token = net::read_token_file(args.token_file);
    if (!token) return core::fail(Failure{token.error(), kExitUsage});
    endpoint.token = std::move(*token);
  }
  auto http = net::make_remote_http(endpoint);
  if (!http) return core::fail(Failure{http.error(), kExitUsage});
  auto response = args.action == "status"  ? (*http)->get(kStatusPath)
                  : args.action == "pause" ? (*http)->post_json(kPausePath, pause_body(args))
                                           : (*http)->post_json(kResumePath, "{}");
  if (!response) {
    // "no answer from URL/PATH: Connection refused" -> "Connection refused": the URL is said once.
    const std::string& why = response.error().message;
    const auto colon = why.rfind(": ");
    const std::string reason = colon == std::string::npos ? why : why.substr(colon + 2);
    return core::fail(
        Failure{core::Error{core::ErrorCode::Unavailable,
                            "no solscope daemon answers at " + (*http)->describe() + " (" + reason + ")",
                            "start one with `solscope serve` (it listens on " + default_daemon_url() +
                                " by default), or give --url URL of a running one"},
                kExitFailure});
  }
  if (response->status != 200) return core::fail(answer_failure(*response, (*http)->describe()));
  auto json = nlohmann::json::parse(response->body, nullptr, false);
  if (!json.is_object()) {
    return core::fail(Failure{core::Error{core::ErrorCode::DataLoss,
                                          "the daemon at " + (*http)->describe() + " sent no JSON object",
                                          "check that --url names a solscope daemon"},
                              kExitFailure});
  }
  return Answer{.text = std::move(response->body), .json = std::move(json)};
}

/// The first line of what an action did.
auto headline(const ProfileArgs& args, const nlohmann::json& status) -> std::string {
  if (args.action == "pause") {
    const auto it = status.find("manual");
    const std::string until =
        it != status.end() && it->is_object() ? wire::string_field(*it, "until", "?") : std::string("?");
    return "PM sampling paused until " + terminal_safe(until) +
           "; `solscope profile resume` ends it sooner\n";
  }
  if (args.action == "resume") {
    const auto it = status.find("resumed");
    const bool resumed = it != status.end() && it->is_boolean() && it->get<bool>();
    return resumed ? "The manual pause ended: PM sampling resumes where nothing else holds it\n"
                   : "No manual pause was active\n";
  }
  return {};
}

}  // namespace

auto default_daemon_url() -> std::string {
  return "http://" + std::string(server::kDefaultListenHost) + ":" +
         std::to_string(server::kDefaultDaemonPort);
}

void add_profile_options(CLI::App& profile, ProfileArgs& args) {
  using config::Scope;
  profile.add_option("action", args.action, "pause, resume or status")
      ->required()
      ->check(CLI::IsMember({"pause", "resume", "status"}));
  profile.footer("Usage: solscope profile pause [--for 10m] [--devices 0,1] | resume | status [--json]");
  config::add_option(profile, Scope::Profile, "--url", args.url);
  config::add_option(profile, Scope::Profile, "--token-file", args.token_file);
  config::add_option(profile, Scope::Profile, "--for", args.for_ns);
  config::add_option(profile, Scope::Profile, "--devices", args.devices);
  config::add_option(profile, Scope::Profile, "--json", args.json);
}

auto run_profile(const ProfileArgs& args, std::ostream& out, std::ostream& err) -> int {
  if (args.action != "pause" && (args.for_ns || !args.devices.empty())) {
    print_error(err, usage("--for and --devices go with `solscope profile pause`",
                           "solscope profile pause --for 10m --devices 0,1")
                         .error);
    return kExitUsage;
  }
  auto answer = ask_daemon(args);
  if (!answer) {
    print_error(err, answer.error().error);
    return answer.error().exit_code;
  }
  if (args.json) {  // the daemon's document as it sent it (its field order, one line)
    out << answer->text << (answer->text.ends_with('\n') ? "" : "\n");
    return kExitOk;
  }
  out << headline(args, answer->json) << render_profiling_status(answer->json);
  return kExitOk;
}

}  // namespace solscope::app
