#include "core/dcgm_fields.hpp"

#include <array>
#include <cmath>
#include <limits>

#include "core/units.hpp"

namespace solscope::core {
namespace {

// Field ids and names: dcgm_fields.h. Tags: the column headers `dcgmi dmon` prints for them.
constexpr std::array kFields{
    DcgmField{100, "DCGM_FI_DEV_SM_CLOCK", "SMCLK", MetricId::SmClockMhz, 1.0},
    DcgmField{101, "DCGM_FI_DEV_MEM_CLOCK", "MMCLK", MetricId::MemClockMhz, 1.0},
    DcgmField{150, "DCGM_FI_DEV_GPU_TEMP", "TMPTR", MetricId::TemperatureC, 1.0},
    DcgmField{155, "DCGM_FI_DEV_POWER_USAGE", "POWER", MetricId::PowerW, 1.0},
    DcgmField{160, "DCGM_FI_DEV_POWER_MGMT_LIMIT", "PMLMT", MetricId::PowerLimitW, 1.0},
    DcgmField{203, "DCGM_FI_DEV_GPU_UTIL", "GPUTL", MetricId::GpuUtil, 1.0},
    DcgmField{204, "DCGM_FI_DEV_MEM_COPY_UTIL", "MCUTL", MetricId::MemCopyUtil, 1.0},
    DcgmField{250, "DCGM_FI_DEV_FB_TOTAL", "FBTTL", MetricId::MemoryTotalBytes, kMebi},
    DcgmField{252, "DCGM_FI_DEV_FB_USED", "FBUSD", MetricId::MemoryUsedBytes, kMebi},
    DcgmField{1001, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "GRACT", MetricId::GrActive, kPercent},
    DcgmField{1002, "DCGM_FI_PROF_SM_ACTIVE", "SMACT", MetricId::SmActive, kPercent},
    DcgmField{1003, "DCGM_FI_PROF_SM_OCCUPANCY", "SMOCC", MetricId::SmOccupancy, kPercent},
    DcgmField{1004, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "TENSO", MetricId::TensorPipe, kPercent},
    DcgmField{1005, "DCGM_FI_PROF_DRAM_ACTIVE", "DRAMA", MetricId::DramThroughput, kPercent},
    DcgmField{1006, "DCGM_FI_PROF_PIPE_FP64_ACTIVE", "FP64A", MetricId::Fp64Pipe, kPercent},
    DcgmField{1007, "DCGM_FI_PROF_PIPE_FP32_ACTIVE", "FP32A", MetricId::FmaPipe, kPercent},
    DcgmField{1008, "DCGM_FI_PROF_PIPE_FP16_ACTIVE", "FP16A", MetricId::Fp16Pipe, kPercent},
    DcgmField{1009, "DCGM_FI_PROF_PCIE_TX_BYTES", "PCITX", MetricId::PcieWriteBytesPerS, 1.0},
    DcgmField{1010, "DCGM_FI_PROF_PCIE_RX_BYTES", "PCIRX", MetricId::PcieReadBytesPerS, 1.0},
    DcgmField{1011, "DCGM_FI_PROF_NVLINK_TX_BYTES", "NVLTX", MetricId::NvlinkTxBytesPerS, 1.0},
    DcgmField{1012, "DCGM_FI_PROF_NVLINK_RX_BYTES", "NVLRX", MetricId::NvlinkRxBytesPerS, 1.0},
};

template <class Pred>
auto find_field(Pred pred) -> std::optional<DcgmField> {
  for (const DcgmField& f : kFields) {
    if (pred(f)) return f;
  }
  return std::nullopt;
}

// DCGM_FT_FP64_BLANK and the three after it; DCGM_FT_INT64_BLANK (0x7ffffffffffffff0) and three; INT32
// likewise.
constexpr double kFp64Blank = 140737488355328.0;
constexpr double kInt64Blank = 9223372036854775792.0;  // 0x7ffffffffffffff0; rounds to 2^63 as a double
constexpr double kInt32Blank = 2147483632.0;           // 0x7ffffff0

}  // namespace

auto dcgm_fields() -> std::span<const DcgmField> {
  return kFields;
}

auto dcgm_field_by_id(std::uint32_t id) -> std::optional<DcgmField> {
  return find_field([id](const DcgmField& f) { return f.id == id; });
}
auto dcgm_field_by_name(std::string_view name) -> std::optional<DcgmField> {
  return find_field([name](const DcgmField& f) { return f.name == name; });
}
auto dcgm_field_by_tag(std::string_view tag) -> std::optional<DcgmField> {
  return find_field([tag](const DcgmField& f) { return f.tag == tag; });
}

auto dcgm_field_by_metric(MetricId metric) -> std::optional<DcgmField> {
  return find_field([metric](const DcgmField& f) { return f.metric == metric; });
}

auto is_dcgm_placeholder(double value) -> bool {
  if (std::isnan(value)) return true;
  for (const double base : {kFp64Blank, kInt32Blank}) {
    if (value >= base && value <= base + 3.0) return true;
  }
  // The INT64 family is 2^63 - 16 .. 2^63 - 13: every one of them rounds to 2^63 as a double. An infinity is
  // no placeholder: it is a value outside every metric's range, which the domain check counts.
  return value >= kInt64Blank && !std::isinf(value);
}

auto dcgm_value(const DcgmField& field, double value) -> double {
  if (is_dcgm_placeholder(value)) return std::numeric_limits<double>::quiet_NaN();
  return value * field.scale;
}

}  // namespace solscope::core
