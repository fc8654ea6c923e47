#include "check/detail/rates.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <vector>

#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/gpu_spec.hpp"

namespace solscope::check {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// CUDA C++ Programming Guide, "Arithmetic Instructions", throughput table (results per clock cycle per
/// multiprocessor): 32-bit floating-point multiply-add, 64-bit floating-point multiply-add, 32-bit bitwise
/// AND/OR/XOR. Used where the spec data has no row for the GPU (FFMA, DFMA) and for the ALU rate.
struct GuideRow {
  int compute_capability;
  double ffma;
  double dfma;
  double logic;
};
constexpr GuideRow kGuide[] = {
    {.compute_capability = 80, .ffma = 64, .dfma = 32, .logic = 64},
    {.compute_capability = 86, .ffma = 128, .dfma = 2, .logic = 64},
    {.compute_capability = 87, .ffma = 128, .dfma = 2, .logic = 64},
    {.compute_capability = 89, .ffma = 128, .dfma = 2, .logic = 64},
    {.compute_capability = 90, .ffma = 128, .dfma = 64, .logic = 64},
    {.compute_capability = 100, .ffma = 128, .dfma = 64, .logic = 64},
    {.compute_capability = 120, .ffma = 128, .dfma = 2, .logic = 64},
};
constexpr double kAluLogicPerClock = 64.0;  // every row above: 16 ALU lanes per SM sub-partition x 4
constexpr std::string_view kGuideSource =
    "CUDA C++ Programming Guide, Arithmetic Instructions throughput table (results/clock/SM)";

auto spec_database() -> const ceiling::GpuDatabase* {
  static const core::Result<ceiling::GpuDatabase> db =
      ceiling::parse_gpu_database(ceiling::default_gpu_specs_json(), "built-in GPU specs");
  return db ? &*db : nullptr;
}

auto same_chip(std::string_view a, std::string_view b) -> bool {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

/// The spec row of `device`: by NVML name, else the rows of its chip.
auto spec_rows(const ceiling::GpuDatabase& db, const DeviceFacts& device)
    -> std::vector<const ceiling::GpuSpec*> {
  if (!device.name.empty()) {
    if (auto gpu = ceiling::find_gpu(db, device.name)) return {*gpu};
  }
  std::vector<const ceiling::GpuSpec*> rows;
  if (device.chip.empty()) return rows;
  for (const ceiling::GpuSpec& gpu : db.gpus) {
    if (same_chip(gpu.chip, device.chip)) rows.push_back(&gpu);
  }
  return rows;
}

/// The rate `pick` gives every row, or NaN when the rows disagree or there are none.
template <class Pick>
auto agreed(const std::vector<const ceiling::GpuSpec*>& rows, Pick pick) -> double {
  if (rows.empty()) return kNaN;
  const double first = pick(*rows.front());
  for (const ceiling::GpuSpec* row : rows) {
    if (pick(*row) != first) return kNaN;
  }
  return first > 0.0 ? first : kNaN;
}

}  // namespace

auto per_sm_rates(const DeviceFacts& device) -> core::Result<PerSmRates> {
  PerSmRates rates{.ffma_per_clock = kNaN,
                   .dfma_per_clock = kNaN,
                   .lop3_per_clock = kAluLogicPerClock,
                   .bf16_flop_per_clock = kNaN,
                   .source = {}};
  std::vector<const ceiling::GpuSpec*> rows;
  if (const ceiling::GpuDatabase* db = spec_database()) rows = spec_rows(*db, device);
  using ceiling::Dtype;
  rates.ffma_per_clock = agreed(
      rows, [](const ceiling::GpuSpec& g) { return g.flop_per_clock_per_sm[index_of(Dtype::Fp32)] / 2.0; });
  rates.dfma_per_clock =
      agreed(rows, [](const ceiling::GpuSpec& g) { return g.fp64_vector_flop_per_clock_per_sm / 2.0; });
  rates.bf16_flop_per_clock =
      agreed(rows, [](const ceiling::GpuSpec& g) { return g.flop_per_clock_per_sm[index_of(Dtype::Bf16)]; });
  if (!rows.empty()) {
    rates.source = "data/gpu_specs.json " +
                   (rows.size() == 1 ? rows.front()->id : "chip " + rows.front()->chip) +
                   " (flop_per_clock_per_sm)";
  }
  const GuideRow* guide = nullptr;
  for (const GuideRow& row : kGuide) {
    if (row.compute_capability == device.compute_capability) guide = &row;
  }
  const bool fill_ffma = std::isnan(rates.ffma_per_clock) && guide != nullptr;
  const bool fill_dfma = std::isnan(rates.dfma_per_clock) && guide != nullptr;
  if (fill_ffma) rates.ffma_per_clock = guide->ffma;
  if (fill_dfma) rates.dfma_per_clock = guide->dfma;
  rates.source += std::string(rates.source.empty() ? "" : "; ") + std::string(kGuideSource) +
                  (fill_ffma || fill_dfma ? " for FFMA/DFMA and" : " for") + " the ALU";
  if (std::isnan(rates.ffma_per_clock)) {
    return core::fail(core::ErrorCode::NotFound,
                      "no per-SM rates for GPU '" + std::string(device.name) + "' (chip " +
                          std::string(device.chip) + ", compute capability " +
                          std::to_string(device.compute_capability) + ")",
                      "add the GPU to data/gpu_specs.json");
  }
  return rates;
}

}  // namespace solscope::check
