// solscope(1): the manual page, rendered from the same CLI11 definition that parses the command line, so that
// it cannot drift from `--help` (`solscope --man`; the build writes it to build/<preset>/solscope.1).
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace solscope::app {

/// The man page (roff, man(7) macros) of `app`: NAME, SYNOPSIS, DESCRIPTION, the top-level OPTIONS, one
/// COMMANDS subsection per subcommand with its options, EXIT STATUS (the app's footer), ENVIRONMENT (every
/// option's environment variable), FILES and SEE ALSO. Options in the hidden group ("") are left out.
/// `version` goes into the title line.
[[nodiscard]] auto render_man_page(const CLI::App& app, const std::string& version) -> std::string;

}  // namespace solscope::app
