#include "core/metric_catalog.hpp"

#include <array>

#include "core/enum_table.hpp"
#include "core/sol_terms.hpp"
#include "core/units.hpp"

namespace solscope::core {
namespace {

constexpr auto pipe(Pipe p) -> std::uint8_t {
  return static_cast<std::uint8_t>(p);
}
constexpr auto path(MemPath p) -> std::uint8_t {
  return static_cast<std::uint8_t>(p);
}
constexpr std::string_view kPipeFamily = "solscope_pipe_utilization_ratio";
constexpr std::string_view kPathFamily = "solscope_memory_path_utilization_ratio";

// Metric names below carry the CUPTI rollup suffix: ".avg.pct_of_peak_sustained_elapsed" for percentages,
// ".sum.per_second" for byte rates. The table is laid out by hand (one row per metric, one line per chip
// family).
// clang-format off
constexpr std::array<MetricDef, kMetricCount> kCatalog{{
    {.id = MetricId::TensorPipe, .name = "tensor_pipe_pct", .label = "TENSR", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::Tensor), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "Tensor-core pipe active cycles, percent of peak sustained.",
     .cupti = {.ga100 = "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "TPC.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 5, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::FmaPipe, .name = "fma_pipe_pct", .label = "FMA", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::Fma), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "FMA pipe (FP32 and FP16x2 fused multiply-add), percent of peak.",
     .cupti = {.ga100 = "sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "",
               .gh100 = "TPC.TriageCompute.sm__inst_executed_pipe_fma_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TPC.TriageCompute.sm__pipe_fma_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "TPC.TriageCompute.sm__pipe_fma_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb20x = ""},
     .gpm_metric_id = 12, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::FmaHeavyPipe, .name = "fma_heavy_pipe_pct", .label = "FMAH", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::FmaHeavy), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "FMA-heavy pipe, percent of peak (chips that split FMA).",
     .cupti = {.ga100 = "",
               .ga10x = "sm__inst_executed_pipe_fmaheavy_realtime.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "", .gb100 = "", .gb110 = "",
               .gb20x = "sm__pipe_fmaheavy_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::FmaLitePipe, .name = "fma_lite_pipe_pct", .label = "FMAL", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::FmaLite), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "FMA-lite pipe, percent of peak (chips that split FMA).",
     .cupti = {.ga100 = "",
               .ga10x = "sm__inst_executed_pipe_fmalite_realtime.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "", .gb100 = "", .gb110 = "",
               .gb20x = "sm__pipe_fmalite_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::AluPipe, .name = "alu_pipe_pct", .label = "ALU", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::Alu), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "ALU pipe (integer, logic, conversions), percent of peak.",
     .cupti = {.ga100 = "sm__inst_executed_pipe_alu_realtime.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "sm__inst_executed_pipe_alu_realtime.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "TPC.TriageCompute.sm__inst_executed_pipe_alu_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "sm__inst_executed_pipe_aluheavy_realtime.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 4, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::AluLitePipe, .name = "alu_lite_pipe_pct", .label = "ALUL", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::AluLite), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "ALU-lite sub-pipe, percent of peak (GB20x).",
     .cupti = {.ga100 = "", .ga10x = "", .gh100 = "", .gb100 = "", .gb110 = "",
               .gb20x = "sm__pipe_fmaheavy_subpipe_alulite_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::Fp64Pipe, .name = "fp64_pipe_pct", .label = "FP64", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::Fp64), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "Non-tensor FP64 pipe, percent of peak.",
     .cupti = {.ga100 = "", .ga10x = "",
               .gh100 = "TPC.TriageCompute.sm__pipe_fp64_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TPC.TriageCompute.sm__pipe_fp64_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "", .gb20x = ""},
     .gpm_metric_id = 11, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::Fp16Pipe, .name = "fp16_pipe_pct", .label = "FP16", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::Fp16), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "Non-tensor FP16 pipe, percent of peak (NVML GPM).",
     .cupti = {}, .gpm_metric_id = 13, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::IssueActive, .name = "issue_pct", .label = "ISSUE", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::Issue), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "Instructions issued, percent of the SMs' peak issue rate.",
     .cupti = {.ga100 = "sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "TPC.TriageCompute.sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TPC.TriageCompute.sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "TPC.TriageCompute.sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "sm__inst_executed_realtime.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::LsuPipe, .name = "lsu_pipe_pct", .label = "LSU", .unit = Unit::Percent,
     .role = MetricRole::ComputePipe, .group = pipe(Pipe::Lsu), .prom_name = kPipeFamily,
     .prom_scale = kRatioPerPercent, .help = "Load/store unit requests into L1, percent of peak.",
     .cupti = {.ga100 = "l1tex__lsuin_requests.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "l1tex__lsuin_requests.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "", .gb100 = "", .gb110 = "", .gb20x = ""},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::SmThroughput, .name = "sm_throughput_pct", .label = "SMTP", .unit = Unit::Percent,
     .role = MetricRole::Activity, .group = 0, .prom_name = "solscope_sm_throughput_ratio",
     .prom_scale = kRatioPerPercent, .help = "Whole-SM throughput (busiest SM sub-unit), percent of peak.",
     .cupti = {.ga100 = "", .ga10x = "",
               .gh100 = "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "", .gb20x = ""},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::DramThroughput, .name = "dram_pct", .label = "DRAM", .unit = Unit::Percent,
     .role = MetricRole::MemoryPath, .group = path(MemPath::Dram), .prom_name = kPathFamily,
     .prom_scale = kRatioPerPercent, .help = "Device memory (DRAM/HBM) throughput, percent of peak bandwidth.",
     .cupti = {.ga100 = "dram__throughput.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "dram__throughput.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "FBSP.TriageCompute.dramc__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "FBSP.TriageCompute.dram__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "FBSP.TriageCompute.dram__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 10, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::L2Throughput, .name = "l2_pct", .label = "L2", .unit = Unit::Percent,
     .role = MetricRole::MemoryPath, .group = path(MemPath::L2), .prom_name = kPathFamily,
     .prom_scale = kRatioPerPercent, .help = "L2 cache (LTS) sector throughput, percent of peak.",
     .cupti = {.ga100 = "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "LTS.TriageCompute.lts__t_sector_throughput.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "LTS.TriageCompute.lts__t_sector_throughput.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "LTS.TriageCompute.lts__t_sector_throughput.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::L1Wavefronts, .name = "l1_pct", .label = "L1", .unit = Unit::Percent,
     .role = MetricRole::MemoryPath, .group = path(MemPath::L1), .prom_name = kPathFamily,
     .prom_scale = kRatioPerPercent, .help = "L1/TEX data-pipe LSU wavefronts, percent of peak.",
     .cupti = {.ga100 = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "SM_A.TriageCompute.l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "SM_A.TriageCompute.l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "SM_A.TriageCompute.l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::L1TexThroughput, .name = "l1tex_throughput_pct", .label = "L1TEX", .unit = Unit::Percent,
     .role = MetricRole::MemoryPath, .group = path(MemPath::L1), .prom_name = kPathFamily,
     .prom_scale = kRatioPerPercent, .help = "L1/TEX throughput (busiest L1 sub-unit), percent of peak.",
     .cupti = {.ga100 = "", .ga10x = "",
               .gh100 = "SM_A.TriageCompute.l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "SM_A.TriageCompute.l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "SM_A.TriageCompute.l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
               .gb20x = ""},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::SmActive, .name = "sm_active_pct", .label = "SMACT", .unit = Unit::Percent,
     .role = MetricRole::Activity, .group = 0, .prom_name = "solscope_sm_active_ratio", .prom_scale = kRatioPerPercent,
     .help = "Cycles with at least one warp resident per SM, averaged over SMs (DCGM SM_ACTIVE).",
     .cupti = {.ga100 = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "TPC.TriageCompute.sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "sm__cycles_active.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 2, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::SmOccupancy, .name = "sm_occupancy_pct", .label = "OCCUP", .unit = Unit::Percent,
     .role = MetricRole::Activity, .group = 0, .prom_name = "solscope_sm_occupancy_ratio",
     .prom_scale = kRatioPerPercent, .help = "Resident warps against the SMs' maximum (DCGM SM_OCCUPANCY).",
     .cupti = {.ga100 = "sm__warps_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "sm__warps_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "TPC.TriageCompute.tpc__warps_active_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "TPC.TriageCompute.tpc__warps_active_shader_cs_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "TPC.TriageCompute.tpc__warps_active_shader_cs_realtime.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "tpc__warps_active_realtime.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 3, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::GrActive, .name = "gr_active_pct", .label = "GRACT", .unit = Unit::Percent,
     .role = MetricRole::Activity, .group = 0, .prom_name = "solscope_gr_engine_active_ratio",
     .prom_scale = kRatioPerPercent, .help = "Cycles the graphics/compute engine was busy (DCGM GR_ENGINE_ACTIVE).",
     .cupti = {.ga100 = "gr__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .ga10x = "gr__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gh100 = "FE_B.TriageCompute.gr__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gb100 = "FE_B.TriageCompute.gr__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gb110 = "FE_B.TriageCompute.gr__cycles_active.avg.pct_of_peak_sustained_elapsed",
               .gb20x = "gr__cycles_active.avg.pct_of_peak_sustained_elapsed"},
     .gpm_metric_id = 1, .gpm_scale = 1.0, .nvml_query = "", .valid = kPercentRange},
    {.id = MetricId::GpuUtil, .name = "gpu_util_pct", .label = "UTIL", .unit = Unit::Percent,
     .role = MetricRole::Activity, .group = 0, .prom_name = "solscope_gpu_utilization_ratio",
     .prom_scale = kRatioPerPercent,
     .help = "Share of time any kernel ran: the 'GPU utilization' of nvidia-smi and nvtop.", .cupti = {},
     .gpm_metric_id = 0, .gpm_scale = 1.0, .nvml_query = "nvmlDeviceGetUtilizationRates().gpu",
     .valid = kPercentRange},
    {.id = MetricId::MemCopyUtil, .name = "mem_copy_util_pct", .label = "MCPY", .unit = Unit::Percent,
     .role = MetricRole::Activity, .group = 0, .prom_name = "solscope_memory_copy_utilization_ratio",
     .prom_scale = kRatioPerPercent, .help = "Share of time device memory was read or written (nvidia-smi 'memory').",
     .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetUtilizationRates().memory", .valid = kPercentRange},
    {.id = MetricId::PcieReadBytesPerS, .name = "pcie_read_bytes_per_s", .label = "PCIRD", .unit = Unit::BytesPerSecond,
     .role = MetricRole::Interconnect, .group = 0, .prom_name = "solscope_pcie_rx_bytes_per_second",
     .prom_scale = 1.0, .help = "PCIe bytes received by the GPU per second.",
     .cupti = {.ga100 = "pcie__read_bytes.sum.per_second", .ga10x = "pcie__read_bytes.sum.per_second",
               .gh100 = "PCI.TriageCompute.pcie__read_bytes.sum.per_second",
               .gb100 = "PCI.TriageCompute.pcie__read_bytes.sum.per_second",
               .gb110 = "PCI.TriageCompute.pcie__read_bytes.sum.per_second",
               .gb20x = "pcie__read_bytes.sum.per_second"},
     .gpm_metric_id = 21, .gpm_scale = kMebi, .nvml_query = "", .valid = kByteRateRange},
    {.id = MetricId::PcieWriteBytesPerS, .name = "pcie_write_bytes_per_s", .label = "PCIWR",
     .unit = Unit::BytesPerSecond, .role = MetricRole::Interconnect, .group = 0,
     .prom_name = "solscope_pcie_tx_bytes_per_second", .prom_scale = 1.0,
     .help = "PCIe bytes sent by the GPU per second.",
     .cupti = {.ga100 = "pcie__write_bytes.sum.per_second", .ga10x = "pcie__write_bytes.sum.per_second",
               .gh100 = "PCI.TriageCompute.pcie__write_bytes.sum.per_second",
               .gb100 = "PCI.TriageCompute.pcie__write_bytes.sum.per_second",
               .gb110 = "PCI.TriageCompute.pcie__write_bytes.sum.per_second",
               .gb20x = "pcie__write_bytes.sum.per_second"},
     .gpm_metric_id = 20, .gpm_scale = kMebi, .nvml_query = "", .valid = kByteRateRange},
    {.id = MetricId::NvlinkRxBytesPerS, .name = "nvlink_rx_bytes_per_s", .label = "NVLRX",
     .unit = Unit::BytesPerSecond, .role = MetricRole::Interconnect, .group = 0,
     .prom_name = "solscope_nvlink_rx_bytes_per_second", .prom_scale = 1.0,
     .help = "NVLink bytes received per second, all links.",
     .cupti = {.ga100 = "nvlrx__bytes.sum.per_second", .ga10x = "",
               .gh100 = "NVLRX.TriageCompute.nvlrx__bytes_packet_request_data_user.sum.per_second+"
                        "NVLRX.TriageCompute.nvlrx__bytes_packet_response_data_user.sum.per_second",
               .gb100 = "NVLRX.TriageCompute.nvlrx__bytes.sum.per_second",
               .gb110 = "NVLRX.TriageCompute.nvlrx__bytes.sum.per_second", .gb20x = ""},
     .gpm_metric_id = 60, .gpm_scale = kMebi, .nvml_query = "", .valid = kByteRateRange},
    {.id = MetricId::NvlinkTxBytesPerS, .name = "nvlink_tx_bytes_per_s", .label = "NVLTX",
     .unit = Unit::BytesPerSecond, .role = MetricRole::Interconnect, .group = 0,
     .prom_name = "solscope_nvlink_tx_bytes_per_second", .prom_scale = 1.0,
     .help = "NVLink bytes sent per second, all links.",
     .cupti = {.ga100 = "nvltx__bytes.sum.per_second", .ga10x = "",
               .gh100 = "NVLTX.TriageCompute.nvltx__bytes_packet_request_data_user.sum.per_second+"
                        "NVLTX.TriageCompute.nvltx__bytes_packet_response_data_user.sum.per_second",
               .gb100 = "NVLTX.TriageCompute.nvltx__bytes.sum.per_second",
               .gb110 = "NVLTX.TriageCompute.nvltx__bytes.sum.per_second", .gb20x = ""},
     .gpm_metric_id = 61, .gpm_scale = kMebi, .nvml_query = "", .valid = kByteRateRange},
    {.id = MetricId::SmClockMhz, .name = "sm_clock_mhz", .label = "SMCLK", .unit = Unit::Megahertz,
     .role = MetricRole::DeviceState, .group = 0, .prom_name = "solscope_sm_clock_hertz", .prom_scale = 1e6,
     .help = "Current SM clock.", .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)", .valid = kClockRange},
    {.id = MetricId::MemClockMhz, .name = "mem_clock_mhz", .label = "MMCLK", .unit = Unit::Megahertz,
     .role = MetricRole::DeviceState, .group = 0, .prom_name = "solscope_memory_clock_hertz", .prom_scale = 1e6,
     .help = "Current memory clock.", .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetClockInfo(NVML_CLOCK_MEM)", .valid = kClockRange},
    {.id = MetricId::PowerW, .name = "power_w", .label = "POWER", .unit = Unit::Watts,
     .role = MetricRole::DeviceState, .group = 0, .prom_name = "solscope_power_watts", .prom_scale = 1.0,
     .help = "Board power draw.", .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetPowerUsage() / 1000", .valid = kPowerRange},
    {.id = MetricId::PowerLimitW, .name = "power_limit_w", .label = "PLIM", .unit = Unit::Watts,
     .role = MetricRole::DeviceState, .group = 0, .prom_name = "solscope_power_limit_watts", .prom_scale = 1.0,
     .help = "Enforced board power limit.", .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetEnforcedPowerLimit() / 1000", .valid = kPowerRange},
    {.id = MetricId::TemperatureC, .name = "temperature_c", .label = "TEMP", .unit = Unit::Celsius,
     .role = MetricRole::DeviceState, .group = 0, .prom_name = "solscope_temperature_celsius", .prom_scale = 1.0,
     .help = "GPU die temperature.", .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)", .valid = kTemperatureRange},
    {.id = MetricId::MemoryUsedBytes, .name = "memory_used_bytes", .label = "MUSED", .unit = Unit::Bytes,
     .role = MetricRole::DeviceState, .group = 0, .prom_name = "solscope_memory_used_bytes", .prom_scale = 1.0,
     .help = "Device memory in use.", .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetMemoryInfo().used", .valid = kMemoryBytesRange},
    {.id = MetricId::MemoryTotalBytes, .name = "memory_total_bytes", .label = "MTOTL", .unit = Unit::Bytes,
     .role = MetricRole::DeviceState, .group = 0, .prom_name = "solscope_memory_total_bytes", .prom_scale = 1.0,
     .help = "Device memory in all.", .cupti = {}, .gpm_metric_id = 0, .gpm_scale = 1.0,
     .nvml_query = "nvmlDeviceGetMemoryInfo().total", .valid = kMemoryBytesRange},
}};
// clang-format on

constexpr auto ids_match_rows() -> bool {
  for (std::size_t i = 0; i < kCatalog.size(); ++i) {
    if (index_of(kCatalog[i].id) != i) return false;
  }
  return true;
}
static_assert(ids_match_rows(), "metric catalog rows must be in MetricId order");

constexpr auto names_unique() -> bool {
  for (std::size_t i = 0; i < kCatalog.size(); ++i) {
    for (std::size_t j = i + 1; j < kCatalog.size(); ++j) {
      if (kCatalog[i].name == kCatalog[j].name) return false;
    }
    if (kCatalog[i].name.empty() || kCatalog[i].label.size() > 5) return false;
  }
  return true;
}
static_assert(names_unique(), "metric names must be unique and non-empty, labels at most 5 characters");

constexpr auto ranges_given() -> bool {
  for (const MetricDef& def : kCatalog) {
    if (!(def.valid.min < def.valid.max)) return false;
  }
  return true;
}
static_assert(ranges_given(), "every metric states the range of its values (MetricDef::valid)");

}  // namespace

auto metric_catalog() -> std::span<const MetricDef> {
  return kCatalog;
}

auto metric_def(MetricId id) -> const MetricDef& {
  return kCatalog[index_of(id)];
}

auto metric_by_name(std::string_view name) -> MetricId {
  for (const auto& def : kCatalog) {
    if (def.name == name) return def.id;
  }
  return MetricId::kCount;
}

auto cupti_counter(const MetricDef& def, ChipFamily family) -> std::string_view {
  switch (family) {
    case ChipFamily::Ga100:
      return def.cupti.ga100;
    case ChipFamily::Ga10x:
      return def.cupti.ga10x;
    case ChipFamily::Gh100:
      return def.cupti.gh100;
    case ChipFamily::Gb100:
      return def.cupti.gb100;
    case ChipFamily::Gb110:
      return def.cupti.gb110;
    case ChipFamily::Gb20x:
      return def.cupti.gb20x;
    case ChipFamily::Unknown:
      break;
  }
  return {};
}

constexpr EnumNames<Unit, 6> kUnitNames({"pct", "bytes_per_s", "mhz", "w", "c", "bytes"}, "unknown");

auto to_string(Unit unit) -> std::string_view {
  return kUnitNames(unit);
}

}  // namespace solscope::core
