// End-to-end tests of the files that `record` and `export` write (issue 10): never over an input, never over
// an existing file without --force, one recorder per trace, only regular files, a full disk stops with one
// error, and a closed pipe is a normal end.
#include <signal.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/process.hpp"
#include "support/solscope_cli.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::run_process;
namespace fs = std::filesystem;

const std::string kBinary = SOLSCOPE_BINARY;
const std::string kDemo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";

auto read_text(const std::string& path) -> std::string {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

auto count_of(const std::string& text, const std::string& word) -> int {
  int count = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++count;
  return count;
}

class TraceOutputCliTest : public testing::SolscopeCliTest {
 protected:
  TraceOutputCliTest() : SolscopeCliTest(kBinary, "solscope-out") {}
  /// Lines of `solscope export FILE` (the CSV header included).
  [[nodiscard]] auto exported_lines(const std::string& file) const -> int {
    auto r = solscope({"export", file});
    return r.exit_code == 0 ? count_of(r.out, "\n") : -1;
  }
};

TEST_F(TraceOutputCliTest, export_never_writes_over_its_input_nor_an_existing_file_without_force) {
  const std::string trace = path("t.sqlite");
  fs::copy_file(kDemo, trace);
  const auto trace_bytes = fs::file_size(trace);
  // Before: exit 0 and the trace became a 652-byte CSV header.
  for (const auto& extra : {std::vector<std::string>{}, std::vector<std::string>{"--force"}}) {
    std::vector<std::string> args{"export", trace, "-o", trace};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = solscope(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("solscope: error: output " + trace + " is the input " + trace), std::string::npos)
        << r.err;
    EXPECT_EQ(fs::file_size(trace), trace_bytes);
  }
  fs::create_symlink(trace, path("link.sqlite"));
  EXPECT_EQ(solscope({"export", trace, "-o", path("link.sqlite"), "--force"}).exit_code, 2);
  EXPECT_EQ(fs::file_size(trace), trace_bytes);

  std::ofstream(path("keep.csv")) << "hello\n";
  auto r = solscope({"export", trace, "-o", path("keep.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("output " + path("keep.csv") + " already exists. choose another path, or add --force"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_text(path("keep.csv")), "hello\n");
  r = solscope({"export", trace, "-o", path("keep.csv"), "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(read_text(path("keep.csv")), "\n"), 4801) << "header and 4800 samples";
}

TEST_F(TraceOutputCliTest, export_into_a_pipe_closed_early_stops_quietly_with_0) {
  // Before: exit 1 with "the output stream failed. check free space ...".
  for (const std::string format : {"csv", "jsonl"}) {
    const std::string command = "set -o pipefail; '" + kBinary + "' export '" + kDemo + "' --format " +
                                format + " 2>'" + path("err.txt") + "' | head -n 1 >/dev/null";
    auto r = run_process({"/bin/bash", "-c", command}, 60s);
    EXPECT_EQ(r.exit_code, 0) << format;
    EXPECT_EQ(read_text(path("err.txt")), "") << format;
  }
}

TEST_F(TraceOutputCliTest, record_refuses_a_fifo_and_a_directory_at_once) {
  // Before: open(2) of the FIFO blocked forever (killed here after 20 s).
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  auto r = solscope({"record", "--replay", kDemo, "--speed", "0", "-o", path("fifo"), "--force"}, 20s);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("output " + path("fifo") + " is a FIFO, not a regular file"), std::string::npos)
      << r.err;
  r = solscope({"record", "--replay", kDemo, "--speed", "0", "-o", dir_.string(), "--force"}, 20s);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 1) << "no -journal or -wal beside the FIFO";
}

TEST_F(TraceOutputCliTest, record_refuses_to_write_over_the_trace_it_replays) {
  const std::string trace = path("t.sqlite");
  fs::copy_file(kDemo, trace);
  const auto trace_bytes = fs::file_size(trace);
  auto r = solscope({"record", "--replay", trace, "--speed", "0", "-o", trace, "--force"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is the replayed trace"), std::string::npos) << r.err;
  EXPECT_EQ(fs::file_size(trace), trace_bytes);
}

TEST_F(TraceOutputCliTest, a_second_recorder_of_one_file_is_refused_and_the_first_keeps_its_samples) {
  const std::string trace = path("same.sqlite");
  testing::BackgroundProcess first(
      {kBinary, "record", "--replay", kDemo, "--speed", "1", "--duration", "30s", "-o", trace, "--force"},
      path("out1"), path("err1"));
  for (int i = 0; i < 200 && !fs::exists(trace); ++i) std::this_thread::sleep_for(50ms);
  ASSERT_TRUE(fs::exists(trace));
  // Before: exit 0, and the file then held only the second recorder's samples.
  auto second = solscope({"record", "--replay", kDemo, "--speed", "0", "-o", trace, "--force"});
  EXPECT_EQ(second.exit_code, 1) << second.err;
  EXPECT_NE(
      second.err.find("solscope: error: trace " + trace + " is being recorded by another process (pid " +
                      std::to_string(first.pid()) + ")"),
      std::string::npos)
      << second.err;
  // On a loaded machine the first recorder may not have committed a sample yet: wait for one (readers open a
  // trace while it records), so that "keeps its samples" has samples to keep.
  for (int i = 0; i < 100 && exported_lines(trace) < 2; ++i) std::this_thread::sleep_for(200ms);
  first.signal(SIGINT);
  ASSERT_EQ(first.wait(20s), 0);
  const std::string err = read_text(path("err1"));
  const auto at = err.find("recorded ");
  ASSERT_NE(at, std::string::npos) << err;
  const int recorded = std::stoi(err.substr(at + 9));
  EXPECT_GT(recorded, 0);
  EXPECT_EQ(exported_lines(trace), recorded + 1) << "every sample the first recorder counted is in the file";
}

TEST_F(TraceOutputCliTest, a_full_disk_stops_the_recording_with_one_error_that_counts_the_kept_samples) {
  // RLIMIT_FSIZE stands in for a full disk without root or mounts: write(2) fails (EFBIG), as with ENOSPC.
  const auto record = [&](const std::string& trace, int limit_kib) {
    const std::string command = "trap '' XFSZ; ulimit -f " + std::to_string(limit_kib) + "; exec '" +
                                kBinary + "' record --replay '" + kDemo + "' --speed 0 -o '" + trace + "'";
    return run_process({"/bin/bash", "-c", command}, 60s);
  };
  const std::string trace = path("run.sqlite");
  auto r = record(trace, 1024);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_of(r.err, "solscope:"), 1) << "one message, before: the same error twice\n" << r.err;
  EXPECT_EQ(r.err.find("samples stay buffered"), std::string::npos) << r.err;
  const auto at = r.err.find("the trace keeps the ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const int kept = std::stoi(r.err.substr(at + 20));
  EXPECT_GT(kept, 0);
  EXPECT_EQ(exported_lines(trace), kept + 1) << r.err;

  // Full at the start: no empty file is left behind.
  r = record(path("start.sqlite"), 8);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(count_of(r.err, "solscope:"), 1) << r.err;
  EXPECT_FALSE(fs::exists(path("start.sqlite"))) << r.err;
}

}  // namespace
}  // namespace solscope::app
