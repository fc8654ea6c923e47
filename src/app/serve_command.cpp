// Placeholder: the daemon lands with issue 4.
#include "app/serve_command.hpp"

#include <CLI/CLI.hpp>

#include "app/exit_codes.hpp"
#include "app/messages.hpp"

namespace solscope::app {

void add_serve_options(CLI::App& serve, ServeArgs& args) {
  serve.add_option("--listen", args.listen, "ADDRESS:PORT to listen on (default 127.0.0.1:9741)")
      ->envname("SOLSCOPE_LISTEN");
}

auto run_serve(const CommonOptions& /*common*/, const WorkloadOptions& /*workloads*/,
               const ServeArgs& /*args*/, std::ostream& /*out*/, std::ostream& err) -> int {
  print_error(err, core::Error{core::ErrorCode::Unimplemented, "solscope serve is not built yet", ""});
  return kExitFailure;
}

}  // namespace solscope::app
