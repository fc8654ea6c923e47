// The display names of an enum's values as one table indexed by the value, instead of a switch per enum.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace solscope::core {

/// Names of the enumerators 0, 1, ..., kCount - 1 of `Enum` (declaration order, no explicit values), and the
/// name of any other value (the kCount sentinel, or a value cast from outside the enum). kCount defaults to
/// `Enum::kCount`; an enum without one names its enumerator count. The table must hold exactly kCount names: a
/// shorter or longer one does not compile. Pure, constexpr; no allocation.
///
///   constexpr core::EnumNames<Dtype> kDtypeNames({"fp64", "fp32", ...}, "unknown");
///   auto to_string(Dtype dtype) -> std::string_view { return kDtypeNames(dtype); }
template <class Enum, std::size_t kCount = static_cast<std::size_t>(Enum::kCount)>
class EnumNames {
 public:
  /// `names[i]` names the enumerator whose value is i; `fallback` names every value from kCount up.
  template <std::size_t N>
  consteval EnumNames(const std::string_view (&names)[N], std::string_view fallback) : fallback_(fallback) {
    static_assert(N == kCount, "core::EnumNames: the table needs exactly one name per enumerator");
    for (std::size_t i = 0; i < N; ++i) names_[i] = names[i];
  }

  /// The name of `value`: its table entry, or the fallback for a value from kCount up.
  [[nodiscard]] constexpr auto operator()(Enum value) const -> std::string_view {
    const auto i = static_cast<std::size_t>(value);
    return i < kCount ? names_[i] : fallback_;
  }

 private:
  std::array<std::string_view, kCount> names_{};
  std::string_view fallback_;
};

}  // namespace solscope::core
