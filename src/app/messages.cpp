#include "app/messages.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace solscope::app {
namespace {

auto edit_distance(std::string_view a, std::string_view b) -> std::size_t {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

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
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace solscope::app
