#include "app/messages.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace solscope::app {
namespace {}  // namespace

void print_error(std::ostream& err, const core::Error& error) {
  err << "solscope: error: " << error.describe() << '\n';
}

void print_warning(std::ostream& err, std::string_view text) {
  err << "solscope: warning: " << text << '\n';
}

void print_note(std::ostream& err, std::string_view text) {
  err << "solscope: " << text << '\n';
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
