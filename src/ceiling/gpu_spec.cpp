#include "ceiling/gpu_spec.hpp"

#include <array>
#include <cmath>
#include <map>
#include <utility>

#include "ceiling/detail/attention_spec.hpp"
#include "ceiling/detail/json_read.hpp"
#include "ceiling/workload.hpp"
#include "core/units.hpp"

namespace solscope::ceiling {
namespace {

using core::ErrorCode;
using core::Result;
using detail::FieldReader;
using detail::Json;

constexpr std::int64_t kMaxUnits = 100'000;

auto invalid(std::string message, std::string hint = "fix the spec file") -> core::Unexpected<core::Error> {
  return core::fail(ErrorCode::InvalidArgument, std::move(message), std::move(hint));
}

/// Reads {"fp64": x, "bf16": y, ...} into a per-dtype array; "fp64_tc" overrides "fp64" when non-zero and
/// `tensor_fp64`.
auto read_rates(const Json* object, const std::string& context, double missing, bool tensor_fp64 = true)
    -> Result<std::array<double, kDtypeCount>> {
  std::array<double, kDtypeCount> rates{};
  rates.fill(missing);
  if (object == nullptr) return rates;
  if (!object->is_object()) return invalid(context + " must be an object of dtype: number");
  FieldReader fields(*object, context);
  for (Dtype d : all_dtypes()) {
    auto v = fields.number({to_string(d)});
    if (!v) return core::propagate(v);
    if (v->has_value()) {
      if (**v < 0) return invalid(context + ": '" + std::string(to_string(d)) + "' must not be negative");
      rates[index_of(d)] = **v;
    }
  }
  auto tc = fields.number({"fp64_tc"});
  if (!tc) return core::propagate(tc);
  if (tensor_fp64 && tc->has_value() && **tc > 0) rates[index_of(Dtype::Fp64)] = **tc;
  for (const auto& [key, value] : object->items()) {
    if (key != "fp64_tc" && !dtype_from_string(key)) {
      return invalid(context + ": unknown dtype '" + key + "'",
                     "use fp64, fp64_tc, fp32, tf32, bf16, fp16, fp8, int8 or fp4");
    }
  }
  return rates;
}

/// Reads an optional {"field": "source text", ...} object into `out`. Errors: a value that is not a string.
auto read_sources(const Json& row, const std::string& context, std::map<std::string, std::string>& out)
    -> Result<void> {
  const auto it = row.find("sources");
  if (it == row.end()) return core::ok();
  if (!it->is_object()) return invalid(context + ": 'sources' must be an object of field: source text");
  for (const auto& [key, value] : it->items()) {
    if (!value.is_string() || value.get<std::string>().empty()) {
      return invalid(context + ": sources '" + key + "' must be a non-empty string");
    }
    out[key] = value.get<std::string>();
  }
  return core::ok();
}

auto read_tiles(const FieldReader& fields, ArchEfficiency& arch) -> Result<void> {
  const Json* tiles = fields.find({"gemm_token_tiles"});
  if (tiles == nullptr || !tiles->is_array() || tiles->empty()) {
    return invalid(fields.context() + ": 'gemm_token_tiles' must be a non-empty array of tile sizes");
  }
  for (const Json& t : *tiles) {
    if (!t.is_number_integer() || t.get<std::int64_t>() < 1 || t.get<std::int64_t>() > 4096) {
      return invalid(fields.context() + ": 'gemm_token_tiles' holds " + detail::value_text(t) +
                     ", not a tile size 1-4096");
    }
    const int size = static_cast<int>(t.get<std::int64_t>());
    if (!arch.gemm_token_tiles.empty() && size <= arch.gemm_token_tiles.back()) {
      return invalid(fields.context() + ": 'gemm_token_tiles' must be in ascending order");
    }
    arch.gemm_token_tiles.push_back(size);
  }
  return core::ok();
}

/// Reads an optional array of ascending tile sizes 1-4096 named `key` of `object` into `out`.
auto read_tile_list(const Json& object, const std::string& context, const char* key, std::vector<int>& out)
    -> Result<void> {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return core::ok();
  if (!it->is_array()) return invalid(context + ": '" + key + "' must be an array of tile sizes");
  for (const Json& t : *it) {
    if (!t.is_number_integer() || t.get<std::int64_t>() < 1 || t.get<std::int64_t>() > 4096) {
      return invalid(context + ": '" + key + "' holds " + detail::value_text(t) + ", not a tile size 1-4096");
    }
    const int size = static_cast<int>(t.get<std::int64_t>());
    if (!out.empty() && size <= out.back()) return invalid(context + ": '" + key + "' must be ascending");
    out.push_back(size);
  }
  return core::ok();
}

/// Reads the optional "gemm_kernels" object (docs/design/ceiling-model.md 2.7, kernel families); absent
/// fields keep GemmKernels' defaults.
auto read_gemm_kernels(const Json& row, const std::string& context, GemmKernels& out) -> Result<void> {
  const auto it = row.find("gemm_kernels");
  if (it == row.end() || it->is_null()) return core::ok();
  const std::string named = context + " gemm_kernels";
  if (!it->is_object()) return invalid(named + " must be an object");
  FieldReader f(*it, named);
  struct IntField {
    const char* key;
    int* value;
    std::int64_t min;  // 0 switches a rule off; a tile is at least 1
  };
  const std::array<IntField, 6> ints{{{"gemv_max_tokens", &out.gemv_max_tokens, 0},
                                      {"swap_ab_max_tokens", &out.swap_ab_max_tokens, 0},
                                      {"swap_ab_token_tile", &out.swap_ab_token_tile, 1},
                                      {"swap_ab_feature_tile", &out.swap_ab_feature_tile, 1},
                                      {"weight_only_token_tile", &out.weight_only_token_tile, 0},
                                      {"weight_only_dequant_rows", &out.weight_only_dequant_rows, 0}}};
  for (const IntField& field : ints) {
    auto v = f.ranged_integer({field.key}, field.min, 4096);
    if (!v) return core::propagate(v);
    if (v->has_value()) *field.value = static_cast<int>(**v);
  }
  if (auto moe = read_tile_list(*it, named, "moe_token_tiles", out.moe_token_tiles); !moe) return moe;
  if (out.moe_token_tiles.size() > 2) return invalid(named + ": 'moe_token_tiles' holds at most 2 tiles");
  return core::ok();
}

auto parse_arch(const Json& row, const std::string& context) -> Result<ArchEfficiency> {
  FieldReader fields(row, context);
  ArchEfficiency arch;
  auto id = fields.string({"id"});
  if (!id) return core::propagate(id);
  if (!id->has_value() || (*id)->empty()) return invalid(context + ": missing 'id'");
  arch.id = **id;
  const std::string named = context + " (" + arch.id + ")";
  FieldReader named_fields(row, named);
  const Json* eff = named_fields.find({"matmul_efficiency"});
  if (eff == nullptr || !eff->is_object()) return invalid(named + ": 'matmul_efficiency' must be an object");
  FieldReader eff_fields(*eff, named + " matmul_efficiency");
  auto fallback = eff_fields.required_number({"default"}, 0.01, 1.0);
  if (!fallback) return core::propagate(fallback);
  auto per_dtype = read_rates(nullptr, named, *fallback);
  for (const auto& [key, value] : eff->items()) {
    if (key == "default") continue;
    const auto d = dtype_from_string(key);
    if (!d || !value.is_number() || value.get<double>() <= 0 || value.get<double>() > 1) {
      return invalid(named + ": matmul_efficiency '" + key + "' must be a dtype with a value in (0, 1]");
    }
    (*per_dtype)[index_of(*d)] = value.get<double>();
  }
  arch.matmul_efficiency = *per_dtype;
  auto attn = detail::read_attention_kernels(row, named);
  auto feature = named_fields.ranged_integer({"gemm_feature_tile"}, 8, 4096);
  auto query = named_fields.ranged_integer({"attention_query_tile"}, 1, 4096);
  auto source = named_fields.string({"source"});
  auto mma = named_fields.string({"mma_instruction"});
  if (!mma) return core::propagate(mma);
  arch.mma_instruction = mma->value_or("");
  if (auto s = read_sources(row, named, arch.sources); !s) return core::propagate(s);
  if (!attn) return core::propagate(attn);
  if (!feature) return core::propagate(feature);
  if (!query) return core::propagate(query);
  if (!source) return core::propagate(source);
  if (!source->has_value() || (*source)->empty()) return invalid(named + ": missing 'source'");
  arch.attention_kernels = std::move(*attn);
  arch.gemm_feature_tile = static_cast<int>(feature->value_or(128));
  arch.attention_query_tile = static_cast<int>(query->value_or(128));
  arch.source = **source;
  if (auto tiles = read_tiles(named_fields, arch); !tiles) return core::propagate(tiles);
  if (auto kernels = read_gemm_kernels(row, named, arch.gemm_kernels); !kernels)
    return core::propagate(kernels);
  return arch;
}

/// Reads the numeric fields of a GPU row (everything but names and rates).
auto read_gpu_numbers(const FieldReader& f, GpuSpec& gpu) -> Result<void> {
  auto sms = f.required_integer({"sm_count"}, 1, kMaxUnits);
  auto max_clock = f.required_number({"max_sm_clock_mhz"}, kMinSmClockMhz, kMaxSmClockMhz);
  auto spec_clock = f.required_number({"tensor_spec_clock_mhz"}, kMinSmClockMhz, kMaxSmClockMhz);
  auto mem = f.required_number({"memory_gb"}, 0.001, 1e6);
  auto bw = f.required_number({"memory_bandwidth_gb_per_s"}, 0.001, 1e6);
  auto link = f.required_number({"link_bidir_gb_per_s"}, 0, 1e6);
  auto host = f.required_number({"host_link_bidir_gb_per_s"}, 0, 1e6);
  auto mem_eff = f.required_number({"memory_efficiency"}, 0.01, 1.0);
  auto t0 = f.required_number({"kernel_overhead_us"}, 0, 1000);
  auto l2 = f.number({"l2_mb"});
  auto tdp = f.number({"tdp_w"});
  for (const auto* r : {&max_clock, &spec_clock, &mem, &bw, &link, &host, &mem_eff, &t0}) {
    if (!*r) return core::propagate(*r);
  }
  if (!sms) return core::propagate(sms);
  if (!l2) return core::propagate(l2);
  if (!tdp) return core::propagate(tdp);
  gpu.sm_count = static_cast<int>(*sms);
  gpu.max_sm_clock_mhz = *max_clock;
  gpu.tensor_spec_clock_mhz = *spec_clock;
  gpu.memory_bytes = *mem * core::kGiga;
  gpu.memory_bandwidth_bytes_per_s = *bw * core::kGiga;
  gpu.link_bidir_bytes_per_s = *link * core::kGiga;
  gpu.host_link_bidir_bytes_per_s = *host * core::kGiga;
  gpu.memory_efficiency = *mem_eff;
  gpu.kernel_overhead_us = *t0;
  gpu.l2_mb = (l2->has_value() && **l2 > 0) ? **l2 : std::numeric_limits<double>::quiet_NaN();
  gpu.tdp_w = tdp->value_or(std::numeric_limits<double>::quiet_NaN());
  return core::ok();
}

auto read_gpu_strings(const FieldReader& f, const Json& row, GpuSpec& gpu) -> Result<void> {
  auto arch = f.string({"arch"});
  auto chip = f.string({"chip"});
  auto host = f.string({"host_link"});
  auto source = f.string({"source"});
  for (const auto* r : {&arch, &chip, &host, &source}) {
    if (!*r) return core::propagate(*r);
  }
  if (!arch->has_value()) return invalid(f.context() + ": missing 'arch'");
  if (!source->has_value() || (*source)->empty()) {
    return invalid(f.context() + ": missing 'source'", "every row must say where its figures come from");
  }
  gpu.arch = **arch;
  gpu.chip = chip->value_or("");
  gpu.host_link = host->value_or("");
  gpu.source = **source;
  if (auto s = read_sources(row, f.context(), gpu.sources); !s) return core::propagate(s);
  if (const auto it = row.find("aliases"); it != row.end()) {
    if (!it->is_array()) return invalid(f.context() + ": 'aliases' must be an array of strings");
    for (const Json& alias : *it) {
      if (!alias.is_string()) return invalid(f.context() + ": 'aliases' must be an array of strings");
      gpu.aliases.push_back(alias.get<std::string>());
    }
  }
  return core::ok();
}

auto parse_gpu(const Json& row, const std::string& context, const std::vector<ArchEfficiency>& archs)
    -> Result<GpuSpec> {
  GpuSpec gpu;
  auto id = FieldReader(row, context).string({"id"});
  if (!id) return core::propagate(id);
  if (!id->has_value() || (*id)->empty()) return invalid(context + ": missing 'id'");
  gpu.id = **id;
  const FieldReader f(row, context + " (" + gpu.id + ")");
  if (auto s = read_gpu_strings(f, row, gpu); !s) return core::propagate(s);
  if (auto n = read_gpu_numbers(f, gpu); !n) return core::propagate(n);
  auto rates = read_rates(f.find({"flop_per_clock_per_sm"}), f.context() + " flop_per_clock_per_sm", 0.0);
  if (!rates) return core::propagate(rates);
  if ((*rates)[index_of(Dtype::Bf16)] <= 0 && (*rates)[index_of(Dtype::Fp16)] <= 0) {
    return invalid(f.context() + ": 'flop_per_clock_per_sm' needs a bf16 or fp16 rate");
  }
  gpu.flop_per_clock_per_sm = *rates;
  auto vector_fp64 =
      read_rates(f.find({"flop_per_clock_per_sm"}), f.context() + " flop_per_clock_per_sm", 0.0,
                 /*tensor_fp64=*/false);
  if (!vector_fp64) return core::propagate(vector_fp64);
  gpu.fp64_vector_flop_per_clock_per_sm = (*vector_fp64)[index_of(Dtype::Fp64)];
  auto sheet = read_rates(f.find({"datasheet_dense_tflops"}), f.context() + " datasheet_dense_tflops",
                          std::numeric_limits<double>::quiet_NaN());
  if (!sheet) return core::propagate(sheet);
  gpu.datasheet_dense_tflops = *sheet;
  for (std::size_t i = 0; i < archs.size(); ++i) {
    if (archs[i].id == gpu.arch) {
      gpu.arch_index = i;
      return gpu;
    }
  }
  return invalid(f.context() + ": unknown arch '" + gpu.arch + "'",
                 "add it to 'architectures' or fix the name");
}

auto check_unique_names(const GpuDatabase& db, std::string_view origin) -> Result<void> {
  std::map<std::string, std::string_view> owner;  // normalized name -> GPU id
  for (const GpuSpec& gpu : db.gpus) {
    std::vector<std::string> names{gpu.id};
    names.insert(names.end(), gpu.aliases.begin(), gpu.aliases.end());
    for (const std::string& name : names) {
      const std::string key = normalize_gpu_name(name);
      const auto [it, inserted] = owner.emplace(key, gpu.id);
      if (key.empty() || (!inserted && it->second != gpu.id)) {
        return invalid("GPU specs " + std::string(origin) + ": the name '" + name + "' of " + gpu.id +
                       (key.empty() ? " is empty" : " also names " + std::string(it->second)));
      }
    }
  }
  return core::ok();
}

auto parse_collective(const Json& root, const std::string& context) -> Result<CollectiveModel> {
  CollectiveModel model;
  const auto it = root.find("collective");
  if (it == root.end()) return model;
  FieldReader f(*it, context + ": collective");
  auto latency = f.required_number({"latency_us"}, 0, 1e6);
  auto eff = f.required_number({"bus_efficiency"}, 0.01, 1.0);
  auto source = f.string({"source"});
  if (!latency) return core::propagate(latency);
  if (!eff) return core::propagate(eff);
  if (!source) return core::propagate(source);
  model.latency_us = *latency;
  model.bus_efficiency = *eff;
  model.source = source->value_or("");
  auto ar = f.number({"all_reduce_overlap"});
  auto a2a = f.number({"all_to_all_overlap"});
  auto p2p = f.number({"p2p_latency_us"});
  for (const auto* r : {&ar, &a2a, &p2p}) {
    if (!*r) return core::propagate(*r);
  }
  for (const auto* r : {&ar, &a2a}) {
    if (r->has_value() && !(**r >= 0.0 && **r <= 1.0)) {
      return invalid(context + ": collective overlap fractions must be 0-1");
    }
  }
  model.all_reduce_overlap = ar->value_or(0.0);
  model.all_to_all_overlap = a2a->value_or(0.0);
  model.p2p_latency_us = p2p->value_or(model.latency_us);
  if (auto s = read_sources(*it, context + ": collective", model.sources); !s) return core::propagate(s);
  return model;
}

/// The optional "memory": {"reserve_fraction": x, "source": "..."} object (2.8).
auto parse_memory_reserve(const Json& root, const std::string& context, GpuDatabase& db) -> Result<void> {
  const auto it = root.find("memory");
  if (it == root.end()) return core::ok();
  FieldReader f(*it, context + ": memory");
  auto reserve = f.required_number({"reserve_fraction"}, 0.0, 0.9);
  auto source = f.string({"source"});
  if (!reserve) return core::propagate(reserve);
  if (!source) return core::propagate(source);
  db.memory_reserve_fraction = *reserve;
  db.memory_reserve_source = source->value_or("");
  return core::ok();
}

}  // namespace

auto parse_gpu_database(std::string_view json_text, std::string_view origin) -> Result<GpuDatabase> {
  const std::string context = "GPU specs " + std::string(origin);
  auto root = detail::parse_json(json_text, context);
  if (!root) return core::propagate(root);
  if (!root->is_object()) return invalid(context + ": the top level must be an object");
  GpuDatabase db;
  const auto archs = root->find("architectures");
  const auto gpus = root->find("gpus");
  if (archs == root->end() || !archs->is_array() || gpus == root->end() || !gpus->is_array() ||
      gpus->empty()) {
    return invalid(context + ": needs the arrays 'architectures' and 'gpus'");
  }
  for (std::size_t i = 0; i < archs->size(); ++i) {
    auto arch = parse_arch((*archs)[i], context + ": architectures[" + std::to_string(i) + "]");
    if (!arch) return core::propagate(arch);
    db.architectures.push_back(std::move(*arch));
  }
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    auto gpu = parse_gpu((*gpus)[i], context + ": gpus[" + std::to_string(i) + "]", db.architectures);
    if (!gpu) return core::propagate(gpu);
    db.gpus.push_back(std::move(*gpu));
  }
  auto collective = parse_collective(*root, context);
  if (!collective) return core::propagate(collective);
  db.collective = std::move(*collective);
  if (auto memory = parse_memory_reserve(*root, context, db); !memory) return core::propagate(memory);
  if (auto unique = check_unique_names(db, origin); !unique) return core::propagate(unique);
  return db;
}

auto peak_flops_per_s(const GpuSpec& gpu, Dtype dtype, double sm_clock_mhz) -> double {
  return static_cast<double>(gpu.sm_count) * gpu.flop_per_clock_per_sm[index_of(dtype)] * sm_clock_mhz *
         core::kMega;
}

}  // namespace solscope::ceiling
