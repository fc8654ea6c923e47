// dcgm-exporter scrapes parsed into samples: real scrapes pasted in public issues (tests/data/real/README.md)
// and SYNTHETIC edge cases (tests/data/synthetic/dcgm-exporter). Every figure asserted is the fixture's value
// times the DCGM field table's scale (ratios 0-1 -> percent).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "core/derive.hpp"
#include "net/dcgm_exposition.hpp"

namespace solscope::net {
namespace {

using core::MetricId;

auto read_fixture(const std::string& relative) -> std::string {
  std::ifstream in(std::string(SOLSCOPE_TEST_DATA_DIR) + "/" + relative, std::ios::binary);
  EXPECT_TRUE(in.good()) << relative;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

auto parse_fixture(const std::string& relative, DcgmDeviceIndex& index) -> DcgmScrape {
  auto scrape = parse_dcgm_scrape(read_fixture(relative), index);
  EXPECT_TRUE(scrape.has_value()) << (scrape ? "" : scrape.error().message);
  return scrape ? *scrape : DcgmScrape{};
}

TEST(DcgmExpositionReal, a30_mig_slice_from_dcgm_exporter_issue_68) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("real/dcgm-exporter/a30-mig-issue68.prom", index);
  ASSERT_EQ(s.gpus.size(), 1u);
  const auto& g = s.gpus[0];
  EXPECT_EQ(g.device.index, 0u);
  EXPECT_EQ(g.device.name, "NVIDIA A30");
  // A MIG slice: the `UUID` label is its parent GPU's (issue 23: two slices no longer share one UUID).
  EXPECT_EQ(g.device.parent_uuid, "GPU-603a8873-0edd-c157-ce48-2078e8b1a935");
  EXPECT_EQ(g.device.uuid, "");
  EXPECT_EQ(core::device_label(g.device), "GPU 0 \u00b7 MIG 2g.12gb #1");
  EXPECT_EQ(g.device.host, "dcgm-exporter-sn5rp");
  EXPECT_EQ(g.device.mig_profile, "2g.12gb");
  EXPECT_EQ(g.device.mig_instance_id, 1);
  EXPECT_EQ(g.device.attribution, "");  // the labels are there but empty
  EXPECT_EQ(g.sample.source, core::SourceKind::Dcgm);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::GrActive), 38.1124);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::TensorPipe), 2.2137);
  EXPECT_TRUE(std::isnan(g.sample.value(MetricId::DramThroughput)));
  EXPECT_EQ(s.lines_used, 2u);
  EXPECT_EQ(s.timestamp_ms, std::numeric_limits<std::int64_t>::min());

  const core::SolSample sol = core::derive(g.sample, g.device);
  EXPECT_DOUBLE_EQ(sol.compute_sol_pct, 2.2137);
  EXPECT_EQ(sol.compute_pipe, core::Pipe::Tensor);
  EXPECT_TRUE(std::isnan(sol.memory_sol_pct));  // no DRAM line: unknown, never 0
}

TEST(DcgmExpositionReal, five_titan_v_from_dcgm_exporter_issue_58) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("real/dcgm-exporter/titan-v-issue58.prom", index);
  ASSERT_EQ(s.gpus.size(), 5u);
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(s.gpus[i].device.index, i);
    EXPECT_EQ(s.gpus[i].device.name, "NVIDIA TITAN V");
    EXPECT_EQ(s.gpus[i].device.mig_instance_id, -1);
  }
  EXPECT_DOUBLE_EQ(s.gpus[0].sample.value(MetricId::SmClockMhz), 135.0);
  EXPECT_DOUBLE_EQ(s.gpus[4].sample.value(MetricId::SmClockMhz), 1335.0);
  EXPECT_EQ(s.gpus[3].device.uuid, "GPU-4b2cedc3-89f9-dde9-ce2f-3b8d40dbe531");
  // Default counters only: no pipe, no SOL.
  EXPECT_TRUE(std::isnan(core::derive(s.gpus[0].sample, s.gpus[0].device).compute_sol_pct));
}

TEST(DcgmExpositionReal, lowercase_hostname_and_pod_attribution_from_pull_736) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("real/dcgm-exporter/ada-a30-pr736.prom", index);
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].device.name, "NVIDIA RTX 2000 Ada Generation");
  EXPECT_EQ(s.gpus[0].device.host, "dcgm-exporter-wwwjh");
  EXPECT_EQ(s.gpus[0].device.pci_bus_id, "00000000:B1:00.0");
  EXPECT_EQ(s.gpus[0].device.attribution, "");
  EXPECT_EQ(s.gpus[1].device.name, "NVIDIA A30");
  EXPECT_EQ(s.gpus[1].device.mig_profile, "1g.6gb");
  EXPECT_EQ(s.gpus[1].device.mig_instance_id, 3);
  EXPECT_EQ(s.gpus[1].device.attribution, "default/triton-server-f7cb5d77-95xcf/triton-server");
  // DEC/ENC utilization have no solscope metric: counted, not guessed.
  EXPECT_EQ(s.unknown_names.at("DCGM_FI_DEV_DEC_UTIL"), 1u);
  EXPECT_EQ(s.unknown_names.at("DCGM_FI_DEV_ENC_UTIL"), 1u);
  EXPECT_EQ(s.lines_used, 2u);  // the two FB_FREE lines
  // Free memory alone gives no total (used is missing).
  EXPECT_TRUE(std::isnan(s.gpus[0].sample.value(MetricId::MemoryTotalBytes)));
}

TEST(DcgmExpositionReal, idle_l4_whole_default_scrape_from_k8s_ai_conformance) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("real/dcgm-exporter/l4-k8s-ai-conformance.prom", index);
  ASSERT_EQ(s.gpus.size(), 1u);
  const auto& g = s.gpus[0];
  EXPECT_EQ(g.device.name, "NVIDIA L4");
  EXPECT_EQ(g.device.pci_bus_id, "00000000:31:00.0");
  EXPECT_EQ(g.device.host, "i-030791dc5a37cd257");
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::SmClockMhz), 210.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::MemClockMhz), 405.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::TemperatureC), 31.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::PowerW), 16.365);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::GpuUtil), 0.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::MemoryUsedBytes), 0.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::MemoryTotalBytes),
                   22563.0 * 1048576.0);  // used 0 + free 22563 MiB
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::PcieWriteBytesPerS), 112603.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::PcieReadBytesPerS), 17544.0);
  // Mapped: 6 device fields, FB used and free, GR, tensor, DRAM, PCIe TX and RX.
  EXPECT_EQ(s.lines_used, 13u);
  const core::SolSample sol = core::derive(g.sample, g.device);
  EXPECT_DOUBLE_EQ(sol.compute_sol_pct, 0.0);  // measured zeros are 0, not unknown
  EXPECT_EQ(sol.compute_pipe, core::Pipe::Tensor);
  EXPECT_DOUBLE_EQ(sol.memory_sol_pct, 0.0);
  EXPECT_EQ(sol.memory_path, core::MemPath::Dram);
  // Not mapped: memory temperature, energy, PCIe replays, ENC, DEC, FB reserved, 3 row-remap fields, license.
  EXPECT_EQ(s.unknown_names.size(), 10u);
}

TEST(DcgmExpositionSynthetic, ratios_become_percent_and_sol_is_the_busiest_pipe) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("synthetic/dcgm-exporter/synthetic-two-gpus.prom", index);
  ASSERT_EQ(s.gpus.size(), 2u);
  const auto& g = s.gpus[0];
  EXPECT_EQ(g.device.attribution, "ml/llm-0/trainer");
  EXPECT_EQ(g.device.host, "node-a");
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::TensorPipe), 25.3);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::Fp16Pipe), 5.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::FmaPipe), 31.2);
  EXPECT_TRUE(std::isnan(g.sample.value(MetricId::Fp64Pipe)));  // 2^47 + 2: not supported
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::DramThroughput), 61.2);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::GpuUtil), 97.0);  // already percent
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::SmActive), 90.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::SmOccupancy), 41.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::PowerW), 612.5);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::MemoryUsedBytes), 70000.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::MemoryTotalBytes), 81559.0 * 1048576.0);
  EXPECT_EQ(g.device.memory_total_bytes, 81559ull * 1048576ull);
  EXPECT_DOUBLE_EQ(g.sample.value(MetricId::PcieWriteBytesPerS), 33011804.0);
  EXPECT_TRUE(std::isnan(g.sample.value(MetricId::L2Throughput)));
  EXPECT_TRUE(std::isnan(g.sample.value(MetricId::IssueActive)));

  const core::SolSample sol = core::derive(g.sample, g.device);
  EXPECT_DOUBLE_EQ(sol.compute_sol_pct, 31.2);  // FP32 0.312 beats tensor 0.253
  EXPECT_DOUBLE_EQ(sol.memory_sol_pct, 61.2);   // DRAM active
  EXPECT_EQ(sol.memory_path, core::MemPath::Dram);

  const auto& idle = s.gpus[1];
  EXPECT_EQ(idle.device.attribution, "");
  EXPECT_DOUBLE_EQ(idle.sample.value(MetricId::TensorPipe), 0.0);        // a real 0 stays 0
  EXPECT_TRUE(std::isnan(idle.sample.value(MetricId::DramThroughput)));  // INT64 not-supported
  EXPECT_DOUBLE_EQ(idle.sample.value(MetricId::MemoryTotalBytes), 81559.0 * 1048576.0);
  EXPECT_EQ(s.unknown_names.at("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"), 1u);
  EXPECT_EQ(s.unknown_names.count("node_load1"), 0u);  // not a DCGM series: ignored
}

TEST(DcgmExpositionSynthetic, mig_slices_are_devices_of_their_own) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("synthetic/dcgm-exporter/synthetic-mig.prom", index);
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].device.mig_profile, "3g.40gb");
  EXPECT_EQ(s.gpus[0].device.mig_instance_id, 1);
  EXPECT_EQ(s.gpus[1].device.mig_profile, "4g.40gb");
  EXPECT_EQ(s.gpus[1].device.mig_instance_id, 2);
  EXPECT_EQ(s.gpus[0].device.parent_uuid, s.gpus[1].device.parent_uuid);  // one parent GPU
  EXPECT_EQ(s.gpus[0].device.parent_uuid, "GPU-22222222-2222-2222-2222-222222222222");
  EXPECT_DOUBLE_EQ(s.gpus[0].device.mig_sm_share, 3.0 / 7.0);
  EXPECT_DOUBLE_EQ(s.gpus[1].device.mig_memory_share, 0.5);
  EXPECT_DOUBLE_EQ(s.gpus[0].sample.value(MetricId::TensorPipe), 50.0);
  EXPECT_DOUBLE_EQ(s.gpus[1].sample.value(MetricId::DramThroughput), 75.0);
  EXPECT_EQ(index.size(), 2u);
}

TEST(DcgmExpositionSynthetic, missing_profiling_fields_leave_sol_unknown) {
  DcgmDeviceIndex index;
  const DcgmScrape s = parse_fixture("synthetic/dcgm-exporter/synthetic-no-profiling.prom", index);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(s.gpus[0].sample.value(MetricId::GpuUtil), 44.0);
  EXPECT_DOUBLE_EQ(s.gpus[0].sample.value(MetricId::MemCopyUtil), 12.0);
  EXPECT_DOUBLE_EQ(s.gpus[0].sample.value(MetricId::TemperatureC), 55.0);
  const core::SolSample sol = core::derive(s.gpus[0].sample, s.gpus[0].device);
  EXPECT_TRUE(std::isnan(sol.compute_sol_pct));
  EXPECT_TRUE(std::isnan(sol.memory_sol_pct));
}

TEST(DcgmExpositionSynthetic, device_indices_stay_stable_across_scrapes) {
  DcgmDeviceIndex index;
  const std::string a =
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"h\"} 1\nDCGM_FI_DEV_GPU_UTIL{gpu=\"1\",Hostname=\"h\"} 2\n";
  const std::string b =
      "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",Hostname=\"h\"} 3\nDCGM_FI_DEV_GPU_UTIL{gpu=\"2\",Hostname=\"h\"} 4\n";
  ASSERT_TRUE(parse_dcgm_scrape(a, index));
  const auto second = parse_dcgm_scrape(b, index);
  ASSERT_TRUE(second);
  ASSERT_EQ(second->gpus.size(), 2u);
  EXPECT_EQ(second->gpus[0].device.index, 1u);
  EXPECT_DOUBLE_EQ(second->gpus[0].sample.value(MetricId::GpuUtil), 3.0);
  EXPECT_EQ(second->gpus[1].device.index, 2u);
  EXPECT_EQ(second->gpus[1].sample.device_index, 2u);
  EXPECT_EQ(index.size(), 3u);
}

TEST(DcgmExpositionSynthetic, concatenated_scrapes_split_by_timestamp) {
  DcgmDeviceIndex index;
  const auto scrapes =
      parse_dcgm_scrapes(read_fixture("synthetic/dcgm-exporter/synthetic-timestamped.prom"), index);
  ASSERT_TRUE(scrapes) << scrapes.error().message;
  ASSERT_EQ(scrapes->size(), 3u);
  EXPECT_EQ((*scrapes)[0].timestamp_ms, 1735689600000);
  EXPECT_EQ((*scrapes)[2].timestamp_ms, 1735689602000);
  ASSERT_EQ((*scrapes)[0].gpus.size(), 1u);
  EXPECT_EQ((*scrapes)[0].gpus[0].sample.t_end_ns, 1735689600000LL * 1'000'000);
  EXPECT_EQ((*scrapes)[0].gpus[0].sample.t_start_ns, 0);
  ASSERT_EQ((*scrapes)[1].gpus.size(), 2u);
  EXPECT_DOUBLE_EQ((*scrapes)[1].gpus[0].sample.value(MetricId::TensorPipe), 30.0);
  EXPECT_DOUBLE_EQ((*scrapes)[1].gpus[1].sample.value(MetricId::TensorPipe), 60.0);
  EXPECT_DOUBLE_EQ((*scrapes)[2].gpus[0].sample.value(MetricId::DramThroughput), 60.0);
}

TEST(DcgmExpositionErrors, mixed_timestamps_name_the_line) {
  DcgmDeviceIndex index;
  const auto r = parse_dcgm_scrapes(
      "# c\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 1 1000\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 2\n", index);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(r.error().message, "line 3: has no timestamp, unlike line 2");
}

TEST(DcgmExpositionErrors, html_page_is_not_exposition_text) {
  DcgmDeviceIndex index;
  const auto r =
      parse_dcgm_scrape("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 1\n<html><body>hi</body></html>\n", index);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::DataLoss);
  EXPECT_TRUE(r.error().message.starts_with("line 2: not Prometheus text exposition")) << r.error().message;
}

TEST(DcgmExpositionErrors, exposition_without_dcgm_series_is_refused) {
  DcgmDeviceIndex index;
  const auto r = parse_dcgm_scrape("# HELP node_load1 x\nnode_load1 0.5\n", index);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message, "no DCGM_FI_* series: not a dcgm-exporter scrape");
  EXPECT_EQ(index.size(), 0u);
  const auto empty = parse_dcgm_scrapes("", index);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, core::ErrorCode::InvalidArgument);
}

TEST(DcgmExpositionErrors, memory_beyond_a_uint64_of_bytes_stays_unknown) {
  // Found by the dcgm_exposition fuzz target: 9.2e18 MiB x 1 MiB does not fit the uint64 of DeviceInfo.
  DcgmDeviceIndex index;
  const auto r = parse_dcgm_scrape(
      "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 9223372036854775000\nDCGM_FI_DEV_FB_FREE{gpu=\"0\"} 1\n"
      "DCGM_FI_DEV_FB_USED{gpu=\"1\"} 1024\nDCGM_FI_DEV_FB_FREE{gpu=\"1\"} 1024\n",
      index);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->gpus.size(), 2u);
  EXPECT_EQ(r->gpus[0].device.memory_total_bytes, 0u);
  EXPECT_EQ(r->gpus[1].device.memory_total_bytes, 2048ull * 1048576ull);
}

}  // namespace
}  // namespace solscope::net

namespace solscope::net {
namespace {

// Issue 18, defect 1: label values that are not UTF-8 (a damaged or foreign scrape) are repaired where the
// exposition text is read, so the device texts that reach `--json`, a trace and /metrics are valid UTF-8.
// Before: the raw bytes were kept and `--dcgm-exporter --json` exited 1 with nothing printed. SYNTHETIC.
TEST(DcgmExpositionForeignText, label_values_that_are_not_utf8_become_the_replacement_character) {
  const std::string fffd = "\xEF\xBF\xBD";
  const std::string text =
      "DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu=\"0\",UUID=\"GPU-\xFF\",modelName=\"NV\xC0\xAFID \xC3\xA9\","
      "Hostname=\"node-\xE2\x82\",pod=\"p\x80\"} 0.5\n";
  DcgmDeviceIndex index;
  auto scrape = parse_dcgm_scrape(text, index);
  ASSERT_TRUE(scrape) << scrape.error().message;
  ASSERT_EQ(scrape->gpus.size(), 1U);
  const core::DeviceInfo& d = scrape->gpus[0].device;
  EXPECT_EQ(d.uuid, "GPU-" + fffd);
  EXPECT_EQ(d.name, "NV" + fffd + fffd + "ID \xC3\xA9");  // valid multibyte text kept byte for byte
  EXPECT_EQ(d.host, "node-" + fffd);
  EXPECT_EQ(d.attribution, "/p" + fffd + "/");
  EXPECT_DOUBLE_EQ(scrape->gpus[0].sample.value(MetricId::GrActive), 50.0);
}

}  // namespace
}  // namespace solscope::net
