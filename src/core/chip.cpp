#include "core/chip.hpp"

#include <algorithm>
#include <array>

#include "core/enum_table.hpp"

namespace solscope::core {
namespace {

constexpr std::array<std::string_view, 1> kGa100Chips{"GA100"};
constexpr std::array<std::string_view, 10> kGa10xChips{"GA102", "GA103", "GA104", "GA106", "GA107",
                                                       "AD102", "AD103", "AD104", "AD106", "AD107"};
constexpr std::array<std::string_view, 1> kGh100Chips{"GH100"};
constexpr std::array<std::string_view, 2> kGb100Chips{"GB100", "GB102"};
constexpr std::array<std::string_view, 1> kGb110Chips{"GB110"};
constexpr std::array<std::string_view, 5> kGb20xChips{"GB202", "GB203", "GB205", "GB206", "GB207"};
constexpr std::array<ChipFamily, 6> kKnownFamilies{ChipFamily::Ga100, ChipFamily::Ga10x, ChipFamily::Gh100,
                                                   ChipFamily::Gb100, ChipFamily::Gb110, ChipFamily::Gb20x};

}  // namespace

constexpr EnumTable<ChipFamily, std::span<const std::string_view>, 7> kChipsOfFamily(
    {std::span<const std::string_view>{}, kGa100Chips, kGa10xChips, kGh100Chips, kGb100Chips, kGb110Chips,
     kGb20xChips},
    {});

auto chips_of(ChipFamily family) -> std::span<const std::string_view> {
  return kChipsOfFamily(family);
}

auto chip_family(std::string_view chip_name) -> ChipFamily {
  for (ChipFamily family : kKnownFamilies) {
    auto chips = chips_of(family);
    if (std::find(chips.begin(), chips.end(), chip_name) != chips.end()) return family;
  }
  return ChipFamily::Unknown;
}

constexpr EnumNames<ChipFamily, 7> kFamilyNames({"unknown", "GA100", "GA10x/AD10x", "GH100", "GB100/GB102",
                                                 "GB110", "GB20x"},
                                                "unknown");

auto to_string(ChipFamily family) -> std::string_view {
  return kFamilyNames(family);
}

auto known_chip_families() -> std::span<const ChipFamily> {
  return kKnownFamilies;
}

auto known_chip_families_text() -> std::string {
  std::string text;
  for (ChipFamily family : kKnownFamilies) {
    if (!text.empty()) text += ", ";
    text += to_string(family);
  }
  return text;
}

}  // namespace solscope::core
