// GPU chip families that share one single-pass PM-sampling counter set.
//
// Source: docs/design/cupti-pm-sampling.md section 3, whose names were each compiled into one-pass config
// images with the CUDA 13.0 profiler host API (tests/sources/nvidia/cupti_config_test.cpp checks them again).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace solscope::core {

/// A family of chips whose counters share names. `Unknown` means PM sampling has no counter set for the chip.
enum class ChipFamily : std::uint8_t {
  Unknown,
  Ga100,  ///< A100 (GA100)
  Ga10x,  ///< Ampere GA102-GA107 and Ada AD102-AD107
  Gh100,  ///< H100, H200 (GH100)
  Gb100,  ///< B200 (GB100, GB102)
  Gb110,  ///< GB110
  Gb20x,  ///< RTX 50 (GB202-GB207)
};

/// The family of a CUPTI chip name such as "GH100" (as returned by cuptiDeviceGetChipName); `Unknown` for
/// chips without a single-pass set (Volta, Turing, Tegra parts, and chips newer than this table).
[[nodiscard]] auto chip_family(std::string_view chip_name) -> ChipFamily;

/// Display name of a family, e.g. "GH100" or "GA10x/AD10x".
[[nodiscard]] auto to_string(ChipFamily family) -> std::string_view;

/// The CUPTI chip names covered by a family (empty for `Unknown`); used to test every chip's config image.
[[nodiscard]] auto chips_of(ChipFamily family) -> std::span<const std::string_view>;

/// Every family with a counter set (all but `Unknown`).
[[nodiscard]] auto known_chip_families() -> std::span<const ChipFamily>;

/// The known families for messages: "GA100, GA10x/AD10x, GH100, GB100/GB102, GB110, GB20x".
[[nodiscard]] auto known_chip_families_text() -> std::string;

}  // namespace solscope::core
