// The text importers of `solscope import` over real and SYNTHETIC fixtures (tests/data/real/<format>,
// tests/data/synthetic/<format>): exact figures, SOL through core::derive, bad lines with their numbers.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/derive.hpp"
#include "imports/detail/dcgm_exporter_import.hpp"
#include "imports/detail/dcgmi_dmon.hpp"
#include "imports/detail/nvidia_smi_dmon.hpp"
#include "imports/detail/prometheus_json.hpp"
#include "imports/importer.hpp"
#include "net/dcgm_exposition.hpp"
#include "support/text_lines.hpp"

namespace solscope::imports {
namespace {

using core::MetricId;
using testing::test_data_text;

constexpr std::int64_t kS = 1'000'000'000;

auto sol(const Recording& r, std::size_t i) -> core::SolSample {
  const core::RawSample& raw = r.samples.at(i);
  return core::derive(raw, r.devices.at(raw.device_index));
}

// --- dcgmi dmon
// ---------------------------------------------------------------------------------------------

TEST(DcgmiDmonImport, real_multiplexed_log_of_eight_gpus) {
  const auto r = parse_dcgmi_dmon(test_data_text("real/dcgmi-dmon/dcgm-issue244-8gpu.txt"),
                                  {.interval_ns = kS, .start_ns = 0});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 8u);
  ASSERT_EQ(r->samples.size(), 10u);
  EXPECT_EQ(r->devices[7].name, "GPU 7 (dcgmi dmon)");
  EXPECT_FALSE(r->synthetic);
  EXPECT_TRUE(r->relative_times);
  // The first interval is all N/A: unknown, never 0.
  EXPECT_TRUE(std::isnan(sol(*r, 0).compute_sol_pct));
  EXPECT_TRUE(std::isnan(r->samples[0].value(MetricId::GrActive)));
  // GPU 0 shows again: the second interval, 1 s later. TENSO 0.178 -> 17.8 %, the busiest pipe.
  const core::RawSample& gpu0 = r->samples[8];
  EXPECT_EQ(gpu0.device_index, 0u);
  EXPECT_EQ(gpu0.source, core::SourceKind::Dcgm);
  EXPECT_EQ(gpu0.t_start_ns, 0);
  EXPECT_EQ(gpu0.t_end_ns, kS);
  EXPECT_DOUBLE_EQ(gpu0.value(MetricId::GrActive), 88.8);
  EXPECT_DOUBLE_EQ(gpu0.value(MetricId::Fp16Pipe), 0.1);
  EXPECT_DOUBLE_EQ(sol(*r, 8).compute_sol_pct, 17.8);
  EXPECT_EQ(sol(*r, 8).compute_pipe, core::Pipe::Tensor);
  EXPECT_TRUE(std::isnan(sol(*r, 8).memory_sol_pct));  // DRAMA N/A
  // GPU 1: FP32A 0.046 beats FP64A 0.000.
  EXPECT_DOUBLE_EQ(sol(*r, 9).compute_sol_pct, 4.6);
  EXPECT_EQ(sol(*r, 9).compute_pipe, core::Pipe::Fma);
  EXPECT_DOUBLE_EQ(r->samples[9].value(MetricId::SmActive), 77.7);
}

TEST(DcgmiDmonImport, numeric_ids_mig_instance_placeholder_and_a_new_header) {
  const auto r = parse_dcgmi_dmon(test_data_text("synthetic/dcgmi-dmon/synthetic-mig-ids.txt"),
                                  {.interval_ns = kS, .start_ns = 0});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 2u);
  ASSERT_EQ(r->samples.size(), 6u);
  EXPECT_TRUE(r->synthetic);
  EXPECT_EQ(r->devices[1].mig_instance_id, 1);
  EXPECT_EQ(r->devices[0].mig_instance_id, -1);
  EXPECT_DOUBLE_EQ(sol(*r, 0).compute_sol_pct, 25.3);  // TENSO (1004) 0.253
  EXPECT_DOUBLE_EQ(sol(*r, 0).memory_sol_pct, 40.0);
  EXPECT_EQ(sol(*r, 0).memory_path, core::MemPath::Dram);
  EXPECT_TRUE(std::isnan(sol(*r, 1).memory_sol_pct));  // 2^47: DCGM's blank, not a figure
  EXPECT_DOUBLE_EQ(sol(*r, 1).compute_sol_pct, 10.0);
  // After the second header (tags), FP32A 0.400 is the busiest pipe.
  EXPECT_DOUBLE_EQ(sol(*r, 4).compute_sol_pct, 40.0);
  EXPECT_EQ(sol(*r, 4).compute_pipe, core::Pipe::Fma);
  EXPECT_EQ(r->samples[4].t_end_ns, 2 * kS);
  EXPECT_TRUE(std::isnan(sol(*r, 4).metric(MetricId::L2Throughput)));
}

TEST(DcgmiDmonImport, bad_row_names_its_line) {
  const auto r = parse_dcgmi_dmon(test_data_text("synthetic/dcgmi-dmon/synthetic-bad-line.txt"), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(r.error().message, "line 4: expected 2 values after the entity, found 1");
  const auto word = parse_dcgmi_dmon("#Entity GRACT\nGPU 0 0.5x\n", {});
  ASSERT_FALSE(word);
  EXPECT_EQ(word.error().message, "line 2: column GRACT: '0.5x' is not a number");
  // Lines above the first header are skipped (a pasted prompt, issue 18 defect 15): without any header the
  // text is not a dcgmi dmon log.
  const auto early = parse_dcgmi_dmon("\nGPU 0 0.5\n", {});
  ASSERT_FALSE(early);
  EXPECT_EQ(early.error().message, "no \"#Entity\" header: not a dcgmi dmon log");
  EXPECT_EQ(parse_dcgmi_dmon("hello\n", {}).error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(parse_dcgmi_dmon("", {}).error().code, core::ErrorCode::InvalidArgument);
  EXPECT_EQ(parse_dcgmi_dmon("#Entity GRACT\nID\n", {}).error().code, core::ErrorCode::InvalidArgument);
}

// --- nvidia-smi dmon
// ----------------------------------------------------------------------------------------

TEST(NvidiaSmiDmonImport, real_gpm_log) {
  const auto r = parse_nvidia_smi_dmon(test_data_text("real/nvidia-smi-dmon/leimao-gpm-1-2-13.txt"),
                                       {.interval_ns = kS, .start_ns = 0});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 1u);
  ASSERT_EQ(r->samples.size(), 4u);
  EXPECT_EQ(r->samples[0].source, core::SourceKind::Gpm);
  EXPECT_TRUE(std::isnan(sol(*r, 0).compute_sol_pct));  // GPM columns "-" in the first two rows
  const core::RawSample& third = r->samples[2];
  EXPECT_EQ(third.t_end_ns, 2 * kS);
  EXPECT_DOUBLE_EQ(third.value(MetricId::GrActive), 1.0);
  EXPECT_DOUBLE_EQ(third.value(MetricId::SmActive), 1.0);
  EXPECT_DOUBLE_EQ(third.value(MetricId::PowerW), 11.0);
  EXPECT_DOUBLE_EQ(third.value(MetricId::SmClockMhz), 495.0);
  EXPECT_DOUBLE_EQ(third.value(MetricId::GpuUtil), 2.0);
  EXPECT_DOUBLE_EQ(third.value(MetricId::MemCopyUtil), 7.0);
  EXPECT_DOUBLE_EQ(sol(*r, 2).compute_sol_pct, 0.0);  // FP16 activity 0 %: measured, so 0
  EXPECT_EQ(sol(*r, 2).compute_pipe, core::Pipe::Fp16);
  EXPECT_DOUBLE_EQ(r->samples[3].value(MetricId::GrActive), 9.0);
  EXPECT_DOUBLE_EQ(r->samples[3].value(MetricId::SmActive), 8.0);
  EXPECT_EQ(r->unmapped.at("enc"), 4u);
  EXPECT_EQ(r->unmapped.count("mtemp"), 0u);  // "-" everywhere: no value to skip
}

TEST(NvidiaSmiDmonImport, date_and_time_columns_place_the_rows) {
  const auto r =
      parse_nvidia_smi_dmon(test_data_text("synthetic/nvidia-smi-dmon/synthetic-date-time.txt"), {});
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 2u);
  ASSERT_EQ(r->samples.size(), 4u);
  EXPECT_TRUE(r->synthetic);
  EXPECT_FALSE(r->relative_times);
  constexpr std::int64_t k1200 = 1740830400LL * kS;  // 2025-03-01 12:00:00 UTC
  EXPECT_EQ(r->samples[2].t_start_ns, k1200);
  EXPECT_EQ(r->samples[2].t_end_ns, k1200 + kS);
  EXPECT_EQ(r->samples[0].t_start_ns, k1200 - kS);     // the first spans as long as the second
  EXPECT_DOUBLE_EQ(sol(*r, 0).compute_sol_pct, 62.0);  // mmaact (tensor) 62, fp16 en dash = unknown
  EXPECT_EQ(sol(*r, 0).compute_pipe, core::Pipe::Tensor);
  EXPECT_DOUBLE_EQ(sol(*r, 2).compute_sol_pct, 70.0);
  EXPECT_EQ(sol(*r, 2).compute_pipe, core::Pipe::Fma);
  EXPECT_DOUBLE_EQ(sol(*r, 2).memory_sol_pct, 30.0);
  EXPECT_DOUBLE_EQ(sol(*r, 3).compute_sol_pct, 1.0);
}

TEST(NvidiaSmiDmonImport, bad_rows_name_their_line) {
  const std::string head = "# gpu pwr smutil\n# Idx W GPM:%\n";
  EXPECT_EQ(parse_nvidia_smi_dmon(head + "0 100\n", {}).error().message,
            "line 3: expected 3 columns as in the header, found 2");
  EXPECT_EQ(parse_nvidia_smi_dmon(head + "0 100 5\nx 100 5\n", {}).error().message,
            "line 4: column gpu: 'x' is not a number");
  // Lines above the first header are skipped (issue 18 defect 15); a row between the two header lines is not.
  EXPECT_EQ(parse_nvidia_smi_dmon("0 1 2\n", {}).error().message,
            "no \"# gpu ...\" header with its units line: not an nvidia-smi dmon log");
  EXPECT_EQ(parse_nvidia_smi_dmon("# gpu pwr\n0 1\n", {}).error().message,
            "line 2: a row between the names line and its units line");
  EXPECT_EQ(parse_nvidia_smi_dmon(
                "#Date Time gpu smutil\n#YYYYMMDD HH:MM:SS Idx GPM:%\n20251301 10:00:00 0 5\n", {})
                .error()
                .message,
            "line 3: date and time '20251301' '10:00:00' are not YYYYMMDD HH:MM:SS");
  // Without GPM columns: NVML figures only, no SOL.
  const auto plain = parse_nvidia_smi_dmon("# gpu pwr sm\n# Idx W %\n0 100 50\n", {});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->samples[0].source, core::SourceKind::NvmlOnly);
  EXPECT_TRUE(std::isnan(sol(*plain, 0).compute_sol_pct));
}

// --- Prometheus query_range JSON
// ----------------------------------------------------------------------------

TEST(PrometheusJsonImport, dcgm_series_with_mig_and_pod_labels) {
  const auto r =
      parse_prometheus_json(test_data_text("synthetic/prometheus-json/synthetic-dcgm-range.json"), kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 2u);
  ASSERT_EQ(r->samples.size(), 5u);
  EXPECT_EQ(r->devices[0].host, "node-a");
  EXPECT_EQ(r->devices[0].name, "SYNTHETIC H100");
  EXPECT_EQ(r->devices[0].uuid, "GPU-00000000-synthetic");
  EXPECT_EQ(r->devices[0].attribution, "ml/train-0/pytorch");
  EXPECT_EQ(r->devices[1].mig_profile, "1g.10gb");
  EXPECT_EQ(r->devices[1].mig_instance_id, 3);
  // Issue 23: a MIG instance, named after its parent GPU (`gpu` label 1) and carrying its parent's UUID.
  EXPECT_EQ(core::device_label(r->devices[1]), "GPU 1 \u00b7 MIG 1g.10gb #3");
  EXPECT_EQ(r->devices[1].parent_uuid, "GPU-11111111-synthetic");
  EXPECT_EQ(r->devices[1].uuid, "");
  EXPECT_DOUBLE_EQ(r->devices[1].mig_sm_share, 1.0 / 7.0);  // an A100: 7 compute slices
  EXPECT_TRUE(std::isnan(r->devices[1].mig_memory_share));  // "SYNTHETIC A100" names no size
  EXPECT_EQ(r->devices[0].parent_uuid, "");
  EXPECT_EQ(r->unmapped.at("up"), 1u);
  // Time order: device 0 and 1 at ...400, then at ...410, then device 0 at ...420.
  EXPECT_EQ(r->samples[0].t_end_ns, 1740830400LL * kS);
  EXPECT_EQ(r->samples[0].t_start_ns, 1740830390LL * kS);
  EXPECT_DOUBLE_EQ(sol(*r, 0).compute_sol_pct, 25.3);
  EXPECT_DOUBLE_EQ(sol(*r, 0).memory_sol_pct, 40.0);
  EXPECT_EQ(r->samples[2].device_index, 0u);
  EXPECT_EQ(r->samples[2].t_start_ns, 1740830400LL * kS);
  EXPECT_DOUBLE_EQ(sol(*r, 2).compute_sol_pct, 60.0);  // FP32 0.600 over tensor 0.500
  EXPECT_EQ(sol(*r, 2).compute_pipe, core::Pipe::Fma);
  EXPECT_TRUE(std::isnan(sol(*r, 4).memory_sol_pct));  // 2^47 placeholder
  EXPECT_DOUBLE_EQ(r->samples[1].value(MetricId::GpuUtil), 100.0);
  EXPECT_EQ(r->samples[1].source, core::SourceKind::Dcgm);
}

TEST(PrometheusJsonImport, solscope_series_by_pipe_and_path_label) {
  const auto r =
      parse_prometheus_json(test_data_text("synthetic/prometheus-json/synthetic-solscope-range.json"), kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 1u);
  ASSERT_EQ(r->samples.size(), 2u);
  EXPECT_EQ(r->devices[0].host, "node-b");
  EXPECT_EQ(r->samples[0].source, core::SourceKind::PmSampling);
  EXPECT_EQ(r->samples[0].t_end_ns, 1740830400'500'000'000LL);
  EXPECT_DOUBLE_EQ(sol(*r, 0).compute_sol_pct, 50.0);
  EXPECT_DOUBLE_EQ(sol(*r, 0).memory_sol_pct, 70.0);
  EXPECT_EQ(sol(*r, 0).memory_path, core::MemPath::L2);
  EXPECT_DOUBLE_EQ(sol(*r, 1).compute_sol_pct, 30.0);
  EXPECT_EQ(sol(*r, 1).compute_pipe, core::Pipe::Fma);
  EXPECT_DOUBLE_EQ(sol(*r, 1).memory_sol_pct, 10.0);  // L2 NaN: DRAM sets it
  EXPECT_DOUBLE_EQ(r->samples[1].value(MetricId::PowerW), 640.0);
}

TEST(PrometheusJsonImport, bad_answers_say_where) {
  const auto point =
      parse_prometheus_json(test_data_text("synthetic/prometheus-json/synthetic-bad-point.json"), kS);
  ASSERT_FALSE(point);
  EXPECT_EQ(point.error().code, core::ErrorCode::DataLoss);
  EXPECT_EQ(point.error().message,
            "data.result[0].values[1]: expected [unix seconds, \"number\"], found '[1740830410,\"zero\"]'");
  const auto syntax =
      parse_prometheus_json(test_data_text("synthetic/prometheus-json/synthetic-bad-syntax.json"), kS);
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().message.rfind("line 3: column 34: invalid JSON", 0), 0u) << syntax.error().message;
  EXPECT_EQ(parse_prometheus_json(R"({"status":"success","data":{"resultType":"vector","result":[]}})", kS)
                .error()
                .code,
            core::ErrorCode::InvalidArgument);
  EXPECT_EQ(parse_prometheus_json(R"({"status":"success","data":{"resultType":"matrix","result":[]}})", kS)
                .error()
                .code,
            core::ErrorCode::InvalidArgument);
  EXPECT_FALSE(parse_prometheus_json("[1e400]", kS));
  // Fields of another type are refused, not thrown (import_text fuzz finding: "status" holding an object).
  const auto object_status = parse_prometheus_json(R"({"status":{"__name__":"up"},"data":{}})", kS);
  ASSERT_FALSE(object_status);
  EXPECT_EQ(object_status.error().code, core::ErrorCode::InvalidArgument);
  const auto numeric_type =
      parse_prometheus_json(R"({"status":"success","data":{"resultType":7,"result":[]}})", kS);
  ASSERT_FALSE(numeric_type);
  EXPECT_EQ(
      numeric_type.error().message,
      "the answer's resultType is not \"matrix\" (a query_range answer) or \"vector\" (a query answer)");
  // An answer past a limit of the reader names it (before: 20 MB of '[' took 1.5 GB, then "invalid JSON").
  const auto deep = parse_prometheus_json(R"({"status":"success","data":)" + std::string(1'000'000, '['), kS);
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code, core::ErrorCode::ResourceExhausted);
  EXPECT_NE(deep.error().message.find("deeper than 32 levels"), std::string::npos) << deep.error().message;
  EXPECT_NE(deep.error().hint.find("smaller answer"), std::string::npos) << deep.error().hint;
}

TEST(PrometheusJsonImport, an_instant_vector_is_one_sample_per_gpu_with_a_note) {
  // Before: refused ("resultType is not matrix"). SYNTHETIC answer of /api/v1/query.
  const std::string vector =
      R"({"status":"success","data":{"resultType":"vector","result":[)"
      R"({"metric":{"__name__":"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE","gpu":"0","Hostname":"n"},"value":[1740830400,"0.25"]},)"
      R"({"metric":{"__name__":"DCGM_FI_PROF_DRAM_ACTIVE","gpu":"0","Hostname":"n"},"value":[1740830400,"0.5"]},)"
      R"({"metric":{"__name__":"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE","gpu":"1","Hostname":"n"},"value":[1740830400,"1"]}]}})";
  const auto r = parse_prometheus_json(vector, 5 * kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 2u);
  ASSERT_EQ(r->samples.size(), 2u);
  for (const core::RawSample& s : r->samples) {
    EXPECT_EQ(s.t_end_ns, 1740830400LL * kS);
    EXPECT_EQ(s.duration_ns(), 5 * kS);  // spans --delay
  }
  EXPECT_DOUBLE_EQ(sol(*r, 0).compute_sol_pct, 25.0);
  EXPECT_DOUBLE_EQ(sol(*r, 0).memory_sol_pct, 50.0);
  EXPECT_DOUBLE_EQ(sol(*r, 1).compute_sol_pct, 100.0);
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_EQ(
      r->notes[0],
      "an instant-query answer (resultType vector): one sample per GPU at its time, spanning --delay (5 s)");
  const auto bad = parse_prometheus_json(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"DCGM_FI_PROF_SM_ACTIVE"},"value":[1740830400,"x"]}]}})",
      kS);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "data.result[0].value: expected [unix seconds, \"number\"], found '[1740830400,\"x\"]'");
  const auto mixed = parse_prometheus_json(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"values":[[1740830400,"1"]]}]}})",
      kS);
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().message, "data.result[0]: a series needs \"metric\" and \"value\"");
}

// --- dcgm-exporter scrapes (the f-live parser) through the importer
// ------------------------------------------

TEST(DcgmExporterImport, timestamped_scrapes_span_from_the_previous_one) {
  const auto r =
      import_dcgm_exporter(test_data_text("synthetic/dcgm-exporter/synthetic-timestamped.prom"), kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 2u);
  ASSERT_EQ(r->samples.size(), 4u);
  EXPECT_TRUE(r->synthetic);
  EXPECT_FALSE(r->relative_times);
  EXPECT_EQ(r->devices[0].attribution, "ml/llm-0/trainer");
  EXPECT_EQ(r->samples[0].t_end_ns, 1735689600LL * kS);
  EXPECT_EQ(r->samples[0].t_start_ns, 1735689599LL * kS);
  EXPECT_DOUBLE_EQ(sol(*r, 0).compute_sol_pct, 10.0);
  EXPECT_DOUBLE_EQ(sol(*r, 0).memory_sol_pct, 20.0);
}

TEST(DcgmExporterImport, one_real_scrape_is_one_sample_per_gpu) {
  const auto r = import_dcgm_exporter(test_data_text("real/dcgm-exporter/titan-v-issue58.prom"), 30 * kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 5u);
  ASSERT_EQ(r->samples.size(), 5u);
  EXPECT_TRUE(r->relative_times);
  EXPECT_FALSE(r->synthetic);
  EXPECT_EQ(r->samples[4].duration_ns(), 30 * kS);
  EXPECT_DOUBLE_EQ(r->samples[4].value(MetricId::SmClockMhz), 1335.0);
  EXPECT_TRUE(std::isnan(sol(*r, 4).compute_sol_pct));  // no profiling fields in that scrape
}

TEST(ImportTimes, times_an_int64_of_ns_cannot_hold_are_refused) {
  EXPECT_EQ(parse_nvidia_smi_dmon(
                "#Date Time gpu smutil\n#YYYYMMDD HH:MM:SS Idx GPM:%\n23000101 10:00:00 0 5\n", {})
                .error()
                .message,
            "line 3: date and time '23000101' '10:00:00' are not YYYYMMDD HH:MM:SS");
  const auto json = parse_prometheus_json(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"DCGM_FI_DEV_GPU_UTIL"},"values":[[1e10,"1"]]}]}})",
      kS);
  ASSERT_FALSE(json);
  EXPECT_EQ(json.error().code, core::ErrorCode::DataLoss);
  const auto far = import_dcgm_exporter("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 7258118400001\n", kS);
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error().message, "line 1: timestamp 7258118400001 ms is not a time between 1970 and 2200");
  // The overflow the import_text fuzz target found: 9.3e12 ms x 1e6 does not fit an int64 of ns.
  const auto overflow = import_dcgm_exporter("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 9300000000000\n", kS);
  ASSERT_FALSE(overflow);
  EXPECT_EQ(overflow.error().code, core::ErrorCode::DataLoss);
  net::DcgmDeviceIndex index;
  EXPECT_FALSE(net::parse_dcgm_scrape("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5 -1\n", index));
  EXPECT_TRUE(interval_fits(1000, {.interval_ns = kS, .start_ns = 0}));
  EXPECT_FALSE(interval_fits(std::int64_t{1} << 40, {.interval_ns = 3600 * kS, .start_ns = 0}));
}

// --- detection, time spans
// ----------------------------------------------------------------------------------

TEST(ImportDetection, each_fixture_is_recognised_by_content) {
  EXPECT_EQ(detect_format(test_data_text("real/dcgmi-dmon/dcgm-issue244-8gpu.txt"), ""),
            ImportFormat::DcgmiDmon);
  EXPECT_EQ(detect_format(test_data_text("synthetic/dcgmi-dmon/synthetic-mig-ids.txt"), "txt"),
            ImportFormat::DcgmiDmon);
  EXPECT_EQ(detect_format(test_data_text("real/nvidia-smi-dmon/leimao-gpm-1-2-13.txt"), ""),
            ImportFormat::NvidiaSmiDmon);
  EXPECT_EQ(detect_format(test_data_text("synthetic/nvidia-smi-dmon/synthetic-date-time.txt"), "log"),
            ImportFormat::NvidiaSmiDmon);
  EXPECT_EQ(detect_format(test_data_text("synthetic/prometheus-json/synthetic-dcgm-range.json"), "txt"),
            ImportFormat::PrometheusJson);
  EXPECT_EQ(detect_format(test_data_text("real/dcgm-exporter/titan-v-issue58.prom"), ""),
            ImportFormat::DcgmExporter);
  EXPECT_EQ(detect_format(test_data_text("synthetic/dcgm-exporter/synthetic-timestamped.prom"), ""),
            ImportFormat::DcgmExporter);
  EXPECT_EQ(detect_format(std::string("SQLite format 3\0rest", 20), ""), ImportFormat::NsysSqlite);
  EXPECT_EQ(detect_format("nothing here\n", "sqlite"), ImportFormat::NsysSqlite);
  EXPECT_EQ(detect_format("nothing here\n", "json"), ImportFormat::PrometheusJson);
  EXPECT_EQ(detect_format("nothing here\n", "txt"), std::nullopt);
  EXPECT_EQ(detect_format("", ""), std::nullopt);
}

TEST(ImportDetection, format_names_round_trip) {
  for (const auto f : {ImportFormat::DcgmExporter, ImportFormat::PrometheusJson, ImportFormat::DcgmiDmon,
                       ImportFormat::NvidiaSmiDmon, ImportFormat::NsysSqlite}) {
    EXPECT_EQ(import_format_from_string(to_string(f)), f);
  }
  EXPECT_EQ(import_format_from_string("csv"), std::nullopt);
  EXPECT_EQ(import_format_names(),
            "dcgm-exporter, prometheus-json, dcgmi-dmon, nvidia-smi-dmon, nsys-sqlite");
}

TEST(ImportSpans, each_device_spans_from_its_previous_timestamp) {
  Recording r;
  r.samples.resize(5);
  std::vector<core::RawSample>& s = r.samples;
  const std::uint32_t devices[] = {0, 1, 0, 0, 1};
  const std::int64_t ends[] = {10, 10, 12, 12, 15};
  for (std::size_t i = 0; i < s.size(); ++i) {
    s[i].device_index = devices[i];
    s[i].t_end_ns = ends[i];
  }
  ASSERT_TRUE(span_from_previous(r, 7));
  ASSERT_EQ(s.size(), 4u);  // device 0's second sample at 12 has no span: dropped (and counted)
  EXPECT_EQ(r.tally.repeated_rows, 1u);
  EXPECT_EQ(s[0].t_start_ns, 8);  // device 0's first gap is 2
  EXPECT_EQ(s[1].t_start_ns, 5);  // device 1's first gap is 5
  EXPECT_EQ(s[2].t_start_ns, 10);
  EXPECT_EQ(s[3].t_start_ns, 10);
  EXPECT_TRUE(declares_synthetic("\n  # Synthetic data\nx"));
  EXPECT_FALSE(declares_synthetic("x\n# synthetic"));
}

// --- text that is not UTF-8 (issue 18, defect 1)
// ---------------------------------------------------------------------------------------------

TEST(ForeignTextImport, ill_formed_utf8_in_a_label_becomes_the_replacement_character) {
  // Before: nlohmann's parser refused the whole file ("invalid string: ill-formed UTF-8 byte"); now the text
  // is repaired where it enters, and the name keeps its valid bytes. SYNTHETIC fixture, one byte made 0xFF.
  std::string text = test_data_text("synthetic/prometheus-json/synthetic-dcgm-range.json");
  const std::string name = "SYNTHETIC H100";
  std::size_t at = 0;
  while ((at = text.find(name, at)) != std::string::npos)
    text.replace(at, name.size(), "SYNTHETIC \xFF H100");
  const auto r = import_text(text, ImportFormat::PrometheusJson, kS);
  ASSERT_TRUE(r) << r.error().describe();
  ASSERT_EQ(r->devices.size(), 2u);
  EXPECT_EQ(r->devices[0].name, "SYNTHETIC \xEF\xBF\xBD H100");
  EXPECT_EQ(r->devices[0].uuid, "GPU-00000000-synthetic");
}

}  // namespace
}  // namespace solscope::imports
