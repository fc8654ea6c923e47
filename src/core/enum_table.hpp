// One value per enumerator of an enum (its display name, a size, a default) as a table indexed by the value,
// instead of a switch per enum and per fact.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace solscope::core {

/// The values of the enumerators 0, 1, ..., kCount - 1 of `Enum` (declaration order, no explicit values), and
/// the value of any other (the kCount sentinel, or a value cast from outside the enum). kCount defaults to
/// `Enum::kCount`; for an enum without one, give its enumerator count. The table must hold exactly kCount
/// values: a shorter or longer one does not compile. Pure, constexpr; no allocation.
///
///   constexpr core::EnumNames<Dtype> kDtypeNames({"fp64", "fp32", ...}, "unknown");
///   auto to_string(Dtype dtype) -> std::string_view { return kDtypeNames(dtype); }
template <class Enum, class Value, std::size_t kCount = static_cast<std::size_t>(Enum::kCount)>
class EnumTable {
 public:
  /// `values[i]` belongs to the enumerator whose value is i; `fallback` to every value from kCount up.
  template <std::size_t N>
  consteval EnumTable(const Value (&values)[N], Value fallback) : fallback_(fallback) {
    static_assert(N == kCount, "core::EnumTable: the table needs exactly one value per enumerator");
    for (std::size_t i = 0; i < N; ++i) values_[i] = values[i];
  }

  /// The value of `e`: its table entry, or the fallback for a value from kCount up.
  [[nodiscard]] constexpr auto operator()(Enum e) const -> Value {
    const auto i = static_cast<std::size_t>(e);
    return i < kCount ? values_[i] : fallback_;
  }

 private:
  std::array<Value, kCount> values_{};
  Value fallback_;
};

/// The display names of an enum's values (to_string).
template <class Enum, std::size_t kCount = static_cast<std::size_t>(Enum::kCount)>
using EnumNames = EnumTable<Enum, std::string_view, kCount>;

}  // namespace solscope::core
