// `solscope import` end to end: each format to a trace, the trace's meta and devices, replay of the imported
// trace with the right SOL, and the refusals (exit 5 with the file and line, exit 2, no file left behind).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/device_info.hpp"
#include "support/process.hpp"
#include "support/solscope_cli.hpp"
#include "trace/reader.hpp"

namespace solscope::imports {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kData = SOLSCOPE_TEST_DATA_DIR;

class ImportCli : public testing::SolscopeCliTest {
 protected:
  ImportCli() : SolscopeCliTest(SOLSCOPE_BINARY, "solscope-import") {}
  auto solscope(std::vector<std::string> args) const -> testing::ProcessResult {
    return SolscopeCliTest::solscope(std::move(args), 60s,
                                     {"XDG_CONFIG_HOME=/nonexistent-solscope-config-dir"});
  }
  /// Every JSON line of `solscope replay TRACE --json --speed 0`.
  [[nodiscard]] auto replay(const std::string& trace) const -> std::vector<nlohmann::json> {
    const auto r = solscope({"replay", trace, "--json", "--speed", "0"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<nlohmann::json> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
  }
};

TEST_F(ImportCli, real_dcgmi_dmon_log_imports_and_replays_with_its_sol) {
  const std::string out = path("dmon.sqlite");
  const auto r = solscope({"import", kData + "/real/dcgmi-dmon/dcgm-issue244-8gpu.txt", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("imported 10 samples of 8 GPUs from ", 0), 0u) << r.out;
  auto reader = trace::Reader::open(out);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_FALSE(reader->metadata().synthetic);
  EXPECT_EQ(reader->metadata().entries.at("import_format"), "dcgmi-dmon");
  EXPECT_EQ(reader->metadata().entries.at("import_file"), kData + "/real/dcgmi-dmon/dcgm-issue244-8gpu.txt");
  EXPECT_EQ(reader->metadata().entries.at("sol_definition").rfind("dcgm: Compute SOL = max(tensor", 0), 0u);
  EXPECT_EQ(reader->sample_count(), 10u);
  const auto lines = replay(out);
  ASSERT_EQ(lines.size(), 10u);
  // The second interval of GPU 0: TENSO 0.178 -> Compute SOL 17.8 % (tensor).
  EXPECT_EQ(lines[8]["device"], 0);
  EXPECT_DOUBLE_EQ(lines[8]["compute_sol_pct"].get<double>(), 17.8);
  EXPECT_EQ(lines[8]["compute_pipe"], "tensor");
  EXPECT_TRUE(lines[8]["memory_sol_pct"].is_null());
  EXPECT_DOUBLE_EQ(lines[9]["compute_sol_pct"].get<double>(), 4.6);
  // No timestamps in the log: the last interval ends at the file's modification time.
  const auto mtime = fs::last_write_time(kData + "/real/dcgmi-dmon/dcgm-issue244-8gpu.txt");
  const auto mtime_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                            std::chrono::file_clock::to_sys(mtime).time_since_epoch())
                            .count();
  EXPECT_EQ(lines[9]["t_end_ns"].get<std::int64_t>(), mtime_ns);
}

TEST_F(ImportCli, real_dcgm_exporter_scrape_of_a_mig_slice_replays_with_its_sol) {
  const std::string out = path("mig.sqlite");
  const auto r = solscope({"import", kData + "/real/dcgm-exporter/a30-mig-issue68.prom", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reader = trace::Reader::open(out);
  ASSERT_TRUE(reader) << reader.error().describe();
  EXPECT_EQ(reader->metadata().entries.at("import_format"), "dcgm-exporter");
  EXPECT_FALSE(reader->metadata().synthetic);
  ASSERT_EQ(reader->devices().size(), 1u);
  EXPECT_EQ(reader->devices()[0].name, "NVIDIA A30");
  EXPECT_EQ(reader->devices()[0].host, "dcgm-exporter-sn5rp");
  EXPECT_EQ(reader->devices()[0].mig_profile, "2g.12gb");
  EXPECT_EQ(reader->devices()[0].mig_instance_id, 1);
  const auto lines = replay(out);
  ASSERT_EQ(lines.size(), 1u);
  // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE 0.022137 -> Compute SOL 2.2137 % (tensor); DRAM active not scraped.
  EXPECT_DOUBLE_EQ(lines[0]["compute_sol_pct"].get<double>(), 2.2137);
  EXPECT_EQ(lines[0]["compute_pipe"], "tensor");
  EXPECT_TRUE(lines[0]["memory_sol_pct"].is_null());
  EXPECT_EQ(lines[0]["t_end_ns"].get<std::int64_t>() - lines[0]["t_start_ns"].get<std::int64_t>(),
            1'000'000'000);
}

// Issue 23: a real scrape with the MIG instances of two A30s (dcgm-exporter issue #317) imports as five
// named instance devices, each with its parent's UUID; before, five "GPU 0".."GPU 4" shared two UUIDs.
TEST_F(ImportCli, real_mig_scrape_names_its_instances) {
  const std::string out = path("mig5.sqlite");
  const auto r = solscope({"import", kData + "/real/dcgm-exporter/a30-mig-issue317.prom", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reader = trace::Reader::open(out);
  ASSERT_TRUE(reader) << reader.error().describe();
  std::vector<std::string> labels;
  for (const core::DeviceInfo& d : reader->devices()) {
    labels.push_back(core::device_label(d) + " " + d.parent_uuid);
    EXPECT_DOUBLE_EQ(d.mig_sm_share, 0.25);
    EXPECT_DOUBLE_EQ(d.mig_memory_share, 0.25);
  }
  const std::string a = " GPU-265c9814-6156-355b-e589-ff2064894f16";
  const std::string b = " GPU-2d20791a-b4a6-ba59-97f1-e95b99fe5b49";
  EXPECT_EQ(labels,
            (std::vector<std::string>{"GPU 0 \u00b7 MIG 1g.6gb #3" + a, "GPU 0 \u00b7 MIG 1g.6gb #4" + a,
                                      "GPU 0 \u00b7 MIG 1g.6gb #5" + a, "GPU 0 \u00b7 MIG 1g.6gb #6" + a,
                                      "GPU 1 \u00b7 MIG 1g.6gb #3" + b}));
  // The report names them the same way.
  const auto report = solscope({"report", out});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find("\nGPU 0 \u00b7 MIG 1g.6gb #4  NVIDIA A30  source dcgm\n"), std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("\nGPU 1 \u00b7 MIG 1g.6gb #3  NVIDIA A30  source dcgm\n"), std::string::npos);
}

TEST_F(ImportCli, every_other_format_imports) {
  struct Case {
    std::string file;
    std::string format;
    std::uint64_t samples;
    bool synthetic;  ///< the file says so (a "# synthetic" line; JSON cannot)
  };
  const Case cases[] = {
      {"real/nvidia-smi-dmon/leimao-gpm-1-2-13.txt", "nvidia-smi-dmon", 4, false},
      {"synthetic/prometheus-json/synthetic-dcgm-range.json", "prometheus-json", 5, false},
      {"real/dcgm-exporter/titan-v-issue58.prom", "dcgm-exporter", 5, false},
      {"synthetic/dcgm-exporter/synthetic-timestamped.prom", "dcgm-exporter", 4, true},
      {"synthetic/nvidia-smi-dmon/synthetic-date-time.txt", "nvidia-smi-dmon", 4, true},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string out = path("t" + std::to_string(++n) + ".sqlite");
    const auto r = solscope({"import", kData + "/" + c.file, "-o", out});
    ASSERT_EQ(r.exit_code, 0) << c.file << ": " << r.err;
    auto reader = trace::Reader::open(out);
    ASSERT_TRUE(reader) << reader.error().describe();
    EXPECT_EQ(reader->metadata().entries.at("import_format"), c.format) << c.file;
    EXPECT_EQ(reader->sample_count(), c.samples) << c.file;
    EXPECT_EQ(reader->metadata().synthetic, c.synthetic) << c.file;
    EXPECT_EQ(reader->metadata().source_description.starts_with("synthetic: imported from "), c.synthetic);
  }
}

TEST_F(ImportCli, devices_keep_host_mig_and_pod) {
  const std::string out = path("p.sqlite");
  ASSERT_EQ(solscope({"import", kData + "/synthetic/prometheus-json/synthetic-dcgm-range.json", "-o", out})
                .exit_code,
            0);
  auto reader = trace::Reader::open(out);
  ASSERT_TRUE(reader);
  ASSERT_EQ(reader->devices().size(), 2u);
  EXPECT_EQ(reader->devices()[0].host, "node-a");
  EXPECT_EQ(reader->devices()[0].attribution, "ml/train-0/pytorch");
  EXPECT_EQ(reader->devices()[1].mig_profile, "1g.10gb");
  EXPECT_EQ(reader->devices()[1].mig_instance_id, 3);
  EXPECT_EQ(reader->metadata().host, "node-a");
  const auto lines = replay(out);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_DOUBLE_EQ(lines[0]["compute_sol_pct"].get<double>(), 25.3);
}

TEST_F(ImportCli, bad_line_exits_5_with_file_and_line_and_leaves_no_file) {
  const std::string out = path("bad.sqlite");
  const std::string in = kData + "/synthetic/dcgmi-dmon/synthetic-bad-line.txt";
  const auto r = solscope({"import", in, "-o", out});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("cannot import " + in + " (dcgmi-dmon): line 4: expected 2 values after the entity"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(out));
  // Forced to a format it is not: exit 5 with that format's complaint.
  const auto forced = solscope({"import", in, "-o", out, "--from", "nvidia-smi-dmon"});
  EXPECT_EQ(forced.exit_code, 5);
  EXPECT_NE(forced.err.find("(nvidia-smi-dmon): no \"# gpu ...\" header with its units line"),
            std::string::npos)
      << forced.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ImportCli, nothing_is_left_out_in_silence) {
  // A pasted capture: the prompt and the command line above the header are skipped, with a note (exit 0).
  std::ofstream(path("paste.txt")) << "user@node:~$ nvidia-smi dmon --gpm-metrics 1 -o DT\n"
                                      "#Date       Time        gpu  gract\n"
                                      "#YYYYMMDD   HH:MM:SS    Idx  GPM:%\n"
                                      " 20250301   12:00:00      0     50\n"
                                      " 20250301   12:00:01      0     60\n"
                                      " 20250301   12:00:01      0     70\n";
  const auto paste = solscope({"import", path("paste.txt"), "-o", path("paste.sqlite")});
  ASSERT_EQ(paste.exit_code, 0) << paste.err;
  EXPECT_EQ(paste.out.rfind("imported 2 samples of 1 GPU", 0), 0u) << paste.out;
  EXPECT_NE(paste.err.find("warning: " + path("paste.txt") + ": 1 line above the first header skipped"),
            std::string::npos)
      << paste.err;
  EXPECT_NE(paste.err.find(": 1 row dropped: the time repeats the previous row of the same GPU"),
            std::string::npos)
      << paste.err;
  // Time going back: the order cannot be trusted, exit 5, no file (before: 1 of 3 samples, exit 0).
  std::ofstream(path("back.txt")) << "#Date       Time        gpu  gract\n"
                                     "#YYYYMMDD   HH:MM:SS    Idx  GPM:%\n"
                                     " 20250301   12:00:02      0     50\n"
                                     " 20250301   12:00:01      0     60\n"
                                     " 20250301   12:00:00      0     70\n";
  const auto back = solscope({"import", path("back.txt"), "-o", path("back.sqlite")});
  EXPECT_EQ(back.exit_code, 5);
  EXPECT_NE(back.err.find("(nvidia-smi-dmon): GPU 0: its row 2 is 1s earlier than row 1: "
                          "the time goes back"),
            std::string::npos)
      << back.err;
  EXPECT_FALSE(fs::exists(path("back.sqlite")));
  // -Inf in a DCGM scrape: unknown and counted, never "Compute SOL -inf %".
  std::ofstream(path("inf.prom")) << "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\"} 0.1 1735689600000\n"
                                     "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu=\"0\"} -Inf 1735689601000\n";
  const auto inf = solscope({"import", path("inf.prom"), "-o", path("inf.sqlite")});
  ASSERT_EQ(inf.exit_code, 0) << inf.err;
  EXPECT_NE(inf.err.find("1 value outside the metric's range or not a number, made unknown (never 0): "
                         "tensor_pipe_pct 1"),
            std::string::npos)
      << inf.err;
  const auto lines = replay(path("inf.sqlite"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_DOUBLE_EQ(lines[0]["compute_sol_pct"].get<double>(), 10.0);
  EXPECT_TRUE(lines[1]["compute_sol_pct"].is_null()) << lines[1].dump();
}

TEST_F(ImportCli, an_instant_vector_imports_with_a_note_and_a_too_deep_answer_names_the_limit) {
  // Before: a vector answer exited 5 ("resultType is not matrix"), and a deep one took 75 bytes of memory
  // per '[' before failing as invalid JSON.
  const std::string vector = path("instant.json");
  std::ofstream(vector)
      << R"({"status":"success","data":{"resultType":"vector","result":[)"
         R"({"metric":{"__name__":"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE","gpu":"0","Hostname":"n"},"value":[1740830400,"0.25"]},)"
         R"({"metric":{"__name__":"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE","gpu":"1","Hostname":"n"},"value":[1740830400,"0.5"]}]}})";
  const auto r = solscope({"import", vector, "-o", path("instant.sqlite")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("imported 2 samples of 2 GPUs from ", 0), 0u) << r.out;
  EXPECT_NE(
      r.err.find("solscope: " + vector +
                 ": an instant-query answer (resultType vector): one sample per GPU at its time, spanning "
                 "--delay (1 s)"),
      std::string::npos)
      << r.err;
  const std::string deep = path("deep.json");
  std::ofstream(deep) << R"({"status":"success","data":)" << std::string(4'000'000, '[');
  const auto refused = solscope({"import", deep, "-o", path("deep.sqlite")});
  EXPECT_EQ(refused.exit_code, 5);
  EXPECT_NE(refused.err.find("deeper than 32 levels (the limit of solscope's Prometheus reader)"),
            std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(path("deep.sqlite")));
}

TEST_F(ImportCli, refusals_and_their_exit_codes) {
  const std::string out = path("t.sqlite");
  const std::string dmon = kData + "/real/dcgmi-dmon/dcgm-issue244-8gpu.txt";
  EXPECT_EQ(solscope({"import", dmon, "-o", out, "--from", "csv"}).exit_code, 2);
  EXPECT_EQ(solscope({"import", dmon}).exit_code, 2);  // -o is required
  EXPECT_EQ(solscope({"import", path("missing.txt"), "-o", out}).exit_code, 5);
  EXPECT_EQ(solscope({"import", dir_.string(), "-o", out}).exit_code, 5);  // a directory
  std::ofstream(path("unknown.txt")) << "hello\nworld\n";
  const auto unknown = solscope({"import", path("unknown.txt"), "-o", out});
  EXPECT_EQ(unknown.exit_code, 5);
  EXPECT_NE(unknown.err.find("cannot tell the format of"), std::string::npos) << unknown.err;
  EXPECT_EQ(solscope({"import", dmon, "-o", dmon}).exit_code, 2);  // never over its input
  EXPECT_FALSE(fs::exists(out));
  ASSERT_EQ(solscope({"import", dmon, "-o", out}).exit_code, 0);
  EXPECT_EQ(solscope({"import", dmon, "-o", out}).exit_code, 2);  // exists: --force replaces it
  EXPECT_EQ(solscope({"import", dmon, "-o", out, "--force"}).exit_code, 0);
}

}  // namespace
}  // namespace solscope::imports
