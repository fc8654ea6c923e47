#include "core/mig_profile.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace solscope::core {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A model of the MIG User Guide's "Supported GPUs" table, found by a word of its name.
struct MigModel {
  std::string_view word;         ///< matched as a whole word of the upper-cased name ("H100", "A30")
  std::uint32_t compute_slices;  ///< "Max Number of Instances"
  double memory_gb;              ///< "Memory Size" for names that carry no "<M>GB"; 0 = always named
  bool name_size_counts = true;  ///< false: a "<M>GB" in the name is not the GPU's memory (GH200: CPU+GPU)
};

// Matched as whole words, so "B200" does not match "GB200"; the "6000"/"5000" rows only in "RTX PRO" names.
// Source: NVIDIA MIG User Guide, "Supported GPUs",
// https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html
constexpr std::array<MigModel, 11> kModels{{
    {"A30", 4, 24},
    {"A100", 7, 0},
    {"H100", 7, 80},  // "NVIDIA H100 PCIe"; "H100 NVL" (94 GB) is told apart in mig_parent_memory_gb
    {"H20", 7, 96},
    {"H200", 7, 141},
    {"GH200", 7, 96, false},  // "NVIDIA GH200 480GB" counts the Grace CPU's memory
    {"B200", 7, 180},
    {"GB200", 7, 186},
    {"6000", 4, 96},  // RTX PRO 6000 Blackwell (Server, Workstation, Max-Q)
    {"5000", 2, 48},  // RTX PRO 5000 Blackwell
    {"A800", 7, 0},
}};

auto upper(std::string_view text) -> std::string {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; });
  return out;
}

auto is_word_char(char c) -> bool {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/// True when `word` occurs in `name` (upper case) with no letter or digit right before or after it.
auto has_word(std::string_view name, std::string_view word) -> bool {
  for (std::size_t at = name.find(word); at != std::string_view::npos; at = name.find(word, at + 1)) {
    const bool start = at == 0 || !is_word_char(name[at - 1]);
    const std::size_t end = at + word.size();
    if (start && (end == name.size() || !is_word_char(name[end]))) return true;
  }
  return false;
}

auto model_of(std::string_view model_name) -> const MigModel* {
  const std::string name = upper(model_name);
  const bool rtx_pro = name.find("RTX PRO") != std::string::npos;
  for (const MigModel& m : kModels) {
    const bool rtx_row = m.word == "6000" || m.word == "5000";
    if (rtx_row == rtx_pro && has_word(name, m.word)) return &m;
  }
  return nullptr;
}

/// The number right before "GB" as a word ending ("80GB", "A100-SXM4-40GB"), or 0.
auto gb_in_name(std::string_view model_name) -> double {
  const std::string name = upper(model_name);
  for (std::size_t at = name.find("GB"); at != std::string::npos; at = name.find("GB", at + 1)) {
    std::size_t begin = at;
    while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
    const bool ends = at + 2 == name.size() || !is_word_char(name[at + 2]);
    if (begin == at || !ends) continue;
    if (begin > 0 && is_word_char(name[begin - 1])) continue;  // "GB200" is a model, not a size
    double gb = 0;
    std::from_chars(name.data() + begin, name.data() + at, gb);
    if (gb > 0) return gb;
  }
  return 0;
}

}  // namespace

auto parse_mig_profile_name(std::string_view profile) -> std::optional<MigProfileName> {
  const std::size_t plus = profile.find('+');
  const std::string_view core_part = profile.substr(0, plus);
  const std::size_t g_dot = core_part.find("g.");
  if (g_dot == std::string_view::npos || !core_part.ends_with("gb")) return std::nullopt;
  MigProfileName out;
  const char* first = core_part.data();
  const auto [n_end, n_ec] = std::from_chars(first, first + g_dot, out.compute_slices);
  if (n_ec != std::errc{} || n_end != first + g_dot || out.compute_slices == 0) return std::nullopt;
  const char* m_begin = first + g_dot + 2;
  const char* m_end = first + core_part.size() - 2;
  const auto [m_stop, m_ec] = std::from_chars(m_begin, m_end, out.memory_gb);
  if (m_ec != std::errc{} || m_stop != m_end || !(out.memory_gb > 0)) return std::nullopt;
  return out;
}

auto mig_compute_slices_of(std::string_view model_name) -> std::uint32_t {
  const MigModel* m = model_of(model_name);
  return m != nullptr ? m->compute_slices : 0;
}

auto mig_parent_memory_gb(std::string_view model_name) -> double {
  constexpr double kH100NvlGb = 94;  // "H100-PCIE 94GB" row, sold as H100 NVL
  const MigModel* m = model_of(model_name);
  if (m == nullptr || m->name_size_counts) {
    if (const double named = gb_in_name(model_name); named > 0) return named;
  }
  if (m == nullptr) return 0;
  if (m->word == "H100" && has_word(upper(model_name), "NVL")) return kH100NvlGb;
  return m->memory_gb;
}

auto mig_shares_from_profile(std::string_view profile, std::string_view model_name) -> MigShares {
  MigShares out{kNaN, kNaN};
  const auto parsed = parse_mig_profile_name(profile);
  if (!parsed) return out;
  if (const std::uint32_t slices = mig_compute_slices_of(model_name); slices > 0) {
    out.sm_share = std::min(1.0, static_cast<double>(parsed->compute_slices) / slices);
  }
  if (const double gb = mig_parent_memory_gb(model_name); gb > 0) {
    out.memory_share = std::min(1.0, parsed->memory_gb / gb);
  }
  return out;
}

}  // namespace solscope::core
