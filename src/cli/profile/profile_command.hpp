// `solscope profile pause|resume|status`: a running daemon's PM pause, as `dcgmi profile --pause/--resume`
// does for DCGM. It talks to the daemon's API (docs/http-api.md "/api/v1/profiling"): POST
// /api/v1/profiling/pause and /resume, GET /api/v1/profiling.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "server/server.hpp"

namespace CLI {
class App;
}

namespace solscope::app {

/// The local daemon's URL: http://127.0.0.1:9741 (server::kDefaultListenHost, kDefaultDaemonPort).
[[nodiscard]] auto default_daemon_url() -> std::string;

/// Options of `solscope profile` (rows of the option table, Scope::Profile).
struct ProfileArgs {
  std::string action;                      ///< "pause", "resume" or "status"
  std::string url = default_daemon_url();  ///< --url: the daemon
  std::string token_file;                  ///< --token-file / SOLSCOPE_TOKEN_FILE: the daemon's bearer token
  std::optional<std::int64_t> for_ns;  ///< --for (pause): 1 s to 24 h; empty = the daemon's default, 30 min
  std::vector<std::uint32_t> devices;  ///< --devices (pause): sorted indices; empty = every device
  bool json = false;                   ///< --json: print the daemon's JSON answer as it is
};

/// Adds the action word and the options above to the `profile` subcommand.
void add_profile_options(CLI::App& profile, ProfileArgs& args);

/// Runs the action against the daemon: prints what it did and the daemon's pause state on `out` (--json: the
/// daemon's JSON answer, the document of GET /api/v1/profiling), and errors on `err`. Exit codes: 0; 2 for a
/// bad command line (--for or --devices with another action than pause, a bad URL, an unsafe token file) or a
/// request the daemon refused as bad (HTTP 400: a GPU it does not have); 1 when no daemon answers at the URL
/// (with the hint to start `solscope serve`), for 401/403 (token missing or wrong), 404 (a daemon without the
/// pause), and any other failure.
auto run_profile(const ProfileArgs& args, std::ostream& out, std::ostream& err) -> int;

}  // namespace solscope::app
