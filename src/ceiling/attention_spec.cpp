#include "ceiling/detail/attention_spec.hpp"

#include <utility>

namespace solscope::ceiling::detail {
namespace {

/// Largest query tile accepted, the same bound as the other tile sizes of an architecture row.
constexpr std::int64_t kMaxQueryTile = 4096;

auto invalid(std::string message) -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, std::move(message), "fix the spec file");
}

auto read_family(const Json& object, const std::string& context) -> core::Result<AttentionKernel> {
  if (!object.is_object()) return invalid(context + " must be an object");
  const FieldReader fields(object, context);
  AttentionKernel family;
  auto kernel = fields.string({"kernel"});
  auto tile = fields.ranged_integer({"query_tile"}, 1, kMaxQueryTile);
  auto fp8 = fields.boolean({"fp8_math"});
  if (!kernel) return core::propagate(kernel);
  if (!tile) return core::propagate(tile);
  if (!fp8) return core::propagate(fp8);
  if (!kernel->has_value() || (*kernel)->empty()) return invalid(context + ": missing 'kernel'");
  const Json* eff = fields.find({"efficiency"});
  if (eff == nullptr) return invalid(context + ": missing 'efficiency'");
  auto rates = read_dtype_efficiency(*eff, context + " efficiency");
  if (!rates) return core::propagate(rates);
  family.kernel = **kernel;
  family.efficiency = *rates;
  family.query_tile = static_cast<int>(tile->value_or(1));
  family.fp8_math = fp8->value_or(false);
  return family;
}

/// The single figure of an older spec file, applied to every family: no padding, no FP8 math.
auto legacy_kernels(const FieldReader& fields) -> core::Result<AttentionKernels> {
  auto eff = fields.required_number({"attention_efficiency"}, 0.01, 1.0);
  if (!eff) {
    return invalid(fields.context() +
                   ": needs an 'attention_kernels' object (or the older "
                   "'attention_efficiency' number)");
  }
  AttentionKernel family{.kernel = "attention (one efficiency)", .efficiency = {}};
  family.efficiency.fill(*eff);
  return AttentionKernels{family, family, family};
}

}  // namespace

auto read_dtype_efficiency(const Json& object, const std::string& context)
    -> core::Result<std::array<double, kDtypeCount>> {
  if (!object.is_object()) return invalid(context + " must be an object of dtype: fraction");
  auto fallback = FieldReader(object, context).required_number({"default"}, 0.01, 1.0);
  if (!fallback) return core::propagate(fallback);
  std::array<double, kDtypeCount> rates{};
  rates.fill(*fallback);
  for (const auto& [key, value] : object.items()) {
    if (key == "default") continue;
    const auto d = dtype_from_string(key);
    if (!d || !value.is_number() || value.get<double>() <= 0 || value.get<double>() > 1) {
      return invalid(context + ": '" + key + "' must be a dtype with a value in (0, 1]");
    }
    rates[index_of(*d)] = value.get<double>();
  }
  return rates;
}

auto read_attention_kernels(const Json& row, const std::string& context) -> core::Result<AttentionKernels> {
  const FieldReader fields(row, context);
  const Json* kernels = fields.find({"attention_kernels"});
  if (kernels == nullptr) return legacy_kernels(fields);
  if (!kernels->is_object()) return invalid(context + ": 'attention_kernels' must be an object");
  AttentionKernels out;
  const std::array<std::pair<const char*, AttentionKernel*>, 3> families{
      {{"prefill", &out.prefill}, {"decode", &out.decode}, {"mla_decode", &out.mla_decode}}};
  for (const auto& [name, slot] : families) {
    const auto it = kernels->find(name);
    const std::string where = context + " attention_kernels." + name;
    if (it == kernels->end()) return invalid(where + " is missing");
    auto family = read_family(*it, where);
    if (!family) return core::propagate(family);
    *slot = std::move(*family);
  }
  return out;
}

}  // namespace solscope::ceiling::detail
