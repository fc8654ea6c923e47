#include "tui/detail/style.hpp"

#include "core/enum_table.hpp"

namespace solscope::tui {

constexpr core::EnumNames<ColorMode, 3> kColorModeNames({"mono", "16", "256"}, "mono");

auto to_string(ColorMode mode) -> std::string_view {
  return kColorModeNames(mode);
}

auto choose_color_mode(std::string_view no_color, std::string_view forced, int terminal_colors) -> ColorMode {
  if (!no_color.empty() || terminal_colors < 8) return ColorMode::Mono;
  if (forced == "mono" || forced == "none" || forced == "never") return ColorMode::Mono;
  if (forced == "16") return ColorMode::Color16;
  if (forced == "256" && terminal_colors >= 16) return ColorMode::Color256;
  return terminal_colors >= 256 ? ColorMode::Color256 : ColorMode::Color16;
}

}  // namespace solscope::tui
