#include "runtime/messages.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace solscope::app {
// Messages carry names and paths from traces, configs and the network: terminal_safe() keeps their escape
// sequences and line breaks from reaching the terminal.
void print_error(std::ostream& err, const core::Error& error) {
  err << "solscope: error: " << core::terminal_safe(error.describe()) << '\n';
}

void print_warning(std::ostream& err, std::string_view text) {
  err << "solscope: warning: " << core::terminal_safe(text) << '\n';
}

void print_note(std::ostream& err, std::string_view text) {
  err << "solscope: " << core::terminal_safe(text) << '\n';
}

auto closest_match(std::string_view word, std::span<const std::string> candidates) -> std::string {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = core::edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace solscope::app
