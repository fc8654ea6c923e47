// End-to-end tests of the solscope binary on a machine without an NVIDIA GPU (like CI).
#include <dlfcn.h>
#include <signal.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "support/process.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::run_process;

const std::string kBinary = SOLSCOPE_BINARY;
const std::string kDemo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";

auto has_nvidia_driver() -> bool {
  void* h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

auto lines_of(const std::string& text) -> std::vector<std::string> {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("solscope-cli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  auto path(const std::string& name) const -> std::string { return (dir_ / name).string(); }
  static auto solscope(std::vector<std::string> args, std::chrono::milliseconds timeout = 60s)
      -> testing::ProcessResult {
    args.insert(args.begin(), kBinary);
    return run_process(args, timeout);
  }
  std::filesystem::path dir_;
};

TEST_F(CliTest, json_into_a_pipe_closed_early_stops_quietly_with_0) {
  // `solscope replay X --json | head -n 1`: the reader leaves after one line; solscope must not complain.
  const std::string command = "set -o pipefail; '" + kBinary + "' replay '" + kDemo +
                              "' --json --speed 1 2>'" + path("err.txt") + "' | head -n 1 >/dev/null";
  auto r = run_process({"/bin/bash", "-c", command}, 60s);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream err_file(path("err.txt"));
  const std::string err((std::istreambuf_iterator<char>(err_file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(err, "");
}

TEST_F(CliTest, devices_without_a_driver_says_so_and_exits_3) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  auto r = solscope({"devices"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("solscope: error: no NVIDIA driver found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("solscope replay FILE"), std::string::npos) << r.err;
}

TEST_F(CliTest, live_json_without_a_driver_exits_3_without_fallback) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  auto r = solscope({"--json"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.out.empty());
}

// The bundled trace is an H100 recording (data/demo-trace.sqlite), and the view says where it was made.
TEST_F(CliTest, plain_solscope_without_a_gpu_plays_the_bundled_recording_and_says_where_it_was_made) {
  if (has_nvidia_driver()) GTEST_SKIP() << "an NVIDIA driver is installed here";
  testing::BackgroundProcess p({kBinary}, path("out"), path("err"));
  std::this_thread::sleep_for(2500ms);
  p.signal(SIGINT);
  EXPECT_EQ(p.wait(10s), 0);
  std::stringstream out, err;
  out << std::ifstream(path("out")).rdbuf();
  err << std::ifstream(path("err")).rdbuf();
  EXPECT_NE(err.str().find("no NVIDIA GPU here"), std::string::npos) << err.str();
  EXPECT_NE(out.str().find("recorded on NVIDIA H100"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("SYNTHETIC"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("compute%"), std::string::npos) << out.str();
  EXPECT_GE(lines_of(out.str()).size(), 4u) << "header and at least one window";
}

// A fatal signal prints the crash report (src/runtime/crash_report.cpp) and still ends the process by that
// signal.
TEST_F(CliTest, a_fatal_signal_prints_the_crash_report_and_ends_by_the_signal) {
  testing::BackgroundProcess p({kBinary, "replay", "--json", "--speed", "1", kDemo}, path("out"),
                               path("err"));
  std::this_thread::sleep_for(1000ms);
  p.signal(SIGSEGV);
  EXPECT_EQ(p.wait(10s), 128 + SIGSEGV);
  std::stringstream err;
  err << std::ifstream(path("err")).rdbuf();
  EXPECT_NE(err.str().find("solscope: fatal signal SEGV in thread "), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("\n  at "), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("+0x"), std::string::npos) << "locations as FILE+OFFSET: " << err.str();
}

TEST_F(CliTest, bad_command_lines_exit_2_with_a_suggestion) {
  auto r = solscope({"devcies"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'devcies'. did you mean 'devices'?"), std::string::npos) << r.err;
  r = solscope({"--intervl", "10ms"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean '--interval'?"), std::string::npos) << r.err;
  r = solscope({"--interval", "fast", "--replay", kDemo});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("invalid duration 'fast'"), std::string::npos) << r.err;
  r = solscope({"--devices", "1-", "--replay", kDemo});
  EXPECT_EQ(r.exit_code, 2);
  r = solscope({"record"});
  EXPECT_EQ(r.exit_code, 2) << "record needs -o";
}

TEST_F(CliTest, version_and_help_exit_0) {
  auto r = solscope({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("solscope 0."), std::string::npos);
  r = solscope({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("Exit codes"), std::string::npos);
}

TEST_F(CliTest, record_then_replay_round_trips_every_sample) {
  auto rec = solscope({"record", "--replay", kDemo, "--speed", "0", "-o", path("copy.sqlite")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  EXPECT_NE(rec.err.find("recorded 4800 samples of 4 GPU(s)"), std::string::npos) << rec.err;
  auto original = solscope({"replay", kDemo, "--json"});
  auto copy = solscope({"replay", path("copy.sqlite"), "--json"});
  ASSERT_EQ(original.exit_code, 0) << original.err;
  ASSERT_EQ(copy.exit_code, 0) << copy.err;
  const auto a = lines_of(original.out);
  const auto b = lines_of(copy.out);
  ASSERT_EQ(a.size(), 4800u);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()), std::set<std::string>(b.begin(), b.end()));
  auto again = solscope({"record", "--replay", kDemo, "--speed", "0", "-o", path("copy.sqlite")});
  EXPECT_EQ(again.exit_code, 2) << "refuses to overwrite without --force";
}

TEST_F(CliTest, sigint_and_sigterm_stop_a_recording_keeping_every_sample) {
  for (int signo : {SIGINT, SIGTERM}) {
    const std::string file = path("rec-" + std::to_string(signo) + ".sqlite");
    testing::BackgroundProcess p({kBinary, "record", "--replay", kDemo, "--interval", "100ms", "-o", file},
                                 path("out"), path("err"));
    std::this_thread::sleep_for(1500ms);
    p.signal(signo);
    EXPECT_EQ(p.wait(10s), 0) << "signal " << signo;
    std::stringstream err;
    err << std::ifstream(path("err")).rdbuf();
    const auto at = err.str().find("recorded ");
    ASSERT_NE(at, std::string::npos) << err.str();
    const long recorded = std::stol(err.str().substr(at + 9));
    EXPECT_GT(recorded, 0);
    auto replay = solscope({"replay", file, "--json"});
    ASSERT_EQ(replay.exit_code, 0) << replay.err;
    EXPECT_EQ(static_cast<long>(lines_of(replay.out).size()), recorded);
  }
}

TEST_F(CliTest, sigkill_of_a_recorder_at_many_points_leaves_a_readable_prefix) {
  auto all = solscope({"replay", kDemo, "--json"});
  const auto lines = lines_of(all.out);
  const std::set<std::string> demo(lines.begin(), lines.end());
  for (int i = 0; i < 12; ++i) {
    const std::string file = path("killed-" + std::to_string(i) + ".sqlite");
    testing::BackgroundProcess p({kBinary, "record", "--replay", kDemo, "--interval", "100ms", "-o", file},
                                 path("out"), path("err"));
    const auto delay = std::chrono::milliseconds(60 + 190 * i);
    std::this_thread::sleep_for(delay);
    p.signal(SIGKILL);
    EXPECT_EQ(p.wait(10s), 128 + SIGKILL);
    if (!std::filesystem::exists(file)) continue;  // killed before the file was created
    auto replay = solscope({"replay", file, "--json"});
    ASSERT_LT(replay.exit_code, 128) << "no crash after a kill at " << delay.count() << " ms";
    if (replay.exit_code != 0) {
      EXPECT_EQ(replay.exit_code, 5) << replay.err;  // killed before the schema was committed
      continue;
    }
    const auto got = lines_of(replay.out);
    for (const auto& line : got) EXPECT_TRUE(demo.count(line)) << "a recorded sample differs from the source";
    if (delay >= 1500ms) {
      EXPECT_GT(got.size(), 0u) << "samples older than a commit period survive";
    }
  }
}

TEST_F(CliTest, damaged_traces_fail_cleanly_with_exit_5) {
  std::ofstream(path("text.sqlite")) << "this is not a database\n";
  auto r = solscope({"replay", path("text.sqlite"), "--json"});
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_NE(r.err.find("not a solscope trace"), std::string::npos) << r.err;
  r = solscope({"replay", path("missing.sqlite")});
  EXPECT_EQ(r.exit_code, 5);
  const auto size = std::filesystem::file_size(kDemo);
  for (const double fraction : {0.0, 0.001, 0.1, 0.5, 0.9, 0.999}) {
    std::filesystem::copy_file(kDemo, path("cut.sqlite"), std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(path("cut.sqlite"),
                                 static_cast<std::uintmax_t>(static_cast<double>(size) * fraction));
    r = solscope({"replay", path("cut.sqlite"), "--json"});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 5) << fraction << ": " << r.exit_code << " " << r.err;
  }
}

/// Writes a copy of the demo trace to `to`, cut to `size_bytes` (all of it by default) and with `flips`
/// (offset, value) applied.
void damaged_demo_copy(const std::string& to, std::vector<std::pair<std::size_t, char>> flips,
                       std::uintmax_t size_bytes = 0) {
  std::filesystem::copy_file(kDemo, to, std::filesystem::copy_options::overwrite_existing);
  if (size_bytes > 0) std::filesystem::resize_file(to, size_bytes);
  std::fstream file(to, std::ios::in | std::ios::out | std::ios::binary);
  for (const auto& [offset, value] : flips) {
    file.seekp(static_cast<std::streamoff>(offset));
    file.put(value);
  }
}

TEST_F(CliTest, one_flipped_byte_mid_trace_is_read_past_and_reported_on_stderr) {
  // Issue 10 item 1: replay and export used to stop after 2170 of 4800 samples, exit 0, stderr empty.
  damaged_demo_copy(path("flip.sqlite"), {{991589, '\xa9'}});
  const std::string where =
      " is damaged: read 4799 samples; samples: 1 of 4,800 rows damaged and skipped: the damage begins at "
      "sample id 2171, after "
      "54.3 s of the trace (t_end_ns 1767225654300000000) (SQLite: database disk image is malformed)";
  auto r = solscope({"replay", path("flip.sqlite"), "--json", "--speed", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), 4799u);
  ASSERT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("solscope: warning: trace " + path("flip.sqlite") + where, 0), 0u) << r.err;
  r = solscope({"export", path("flip.sqlite")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out).size(), 4800u) << "header + 4799 samples";
  ASSERT_EQ(lines_of(r.err).size(), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("solscope: warning: trace " + path("flip.sqlite") + where, 0), 0u) << r.err;
  // `record --replay` re-records what it could read and says what it skipped, like replay and export.
  r = solscope({"record", "--replay", path("flip.sqlite"), "--speed", "0", "-o", path("again.sqlite")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("recorded 4799 samples"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("solscope: warning: trace " + path("flip.sqlite") + where), std::string::npos)
      << r.err;
}

TEST_F(CliTest, serve_replay_of_a_damaged_trace_says_what_it_read_when_the_replay_ends) {
  damaged_demo_copy(path("flip.sqlite"), {{991589, '\xa9'}});
  testing::BackgroundProcess p(
      {kBinary, "serve", "--replay", path("flip.sqlite"), "--speed", "0", "--listen", "127.0.0.1:0"},
      path("out"), path("err"));
  std::string err;
  for (int i = 0; i < 300 && err.find("the replay ended") == std::string::npos; ++i) {  // at most 30 s
    std::this_thread::sleep_for(100ms);
    std::stringstream text;
    text << std::ifstream(path("err")).rdbuf();
    err = text.str();
  }
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait(10s), 0);
  EXPECT_NE(err.find("solscope: warning: trace " + path("flip.sqlite") +
                     " is damaged: read 4799 samples; samples: 1 of 4,800 rows damaged and skipped: the "
                     "damage begins at sample id "
                     "2171"),
            std::string::npos)
      << err;
}

TEST_F(CliTest, a_trace_with_nothing_readable_exits_5_from_every_reader) {
  // Cut to 64 KiB: replay and export used to read 0 samples with exit 0, and serve --replay served nothing.
  damaged_demo_copy(path("cut.sqlite"), {}, 64 * 1024);
  const std::string why = "is cut short (64.0 KiB of the 2.0 MiB its header declares): no sample can be read";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"replay", path("cut.sqlite"), "--json", "--speed", "0"},
           {"export", path("cut.sqlite")},
           {"serve", "--replay", path("cut.sqlite"), "--listen", "127.0.0.1:0"}}) {
    auto r = solscope(args, 30s);
    EXPECT_EQ(r.exit_code, 5) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
}

TEST_F(CliTest, a_damaged_schema_exits_5_not_2) {
  // Issue 10 item 15: "no such table: samples" was exit 2 (replay) and 1 (export); only the command line
  // is 2.
  std::ifstream in(kDemo, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = bytes.find("CREATE TABLE samples(");
  ASSERT_NE(at, std::string::npos);
  damaged_demo_copy(path("schema.sqlite"), {{at + 5, 'X'}});
  for (const auto& args : std::vector<std::vector<std::string>>{{"replay", path("schema.sqlite"), "--json"},
                                                                {"export", path("schema.sqlite")}}) {
    auto r = solscope(args);
    EXPECT_EQ(r.exit_code, 5) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("its schema is unreadable (no such table: samples"), std::string::npos)
        << args[0] << ": " << r.err;
  }
}

TEST_F(CliTest, export_writes_csv_and_jsonl) {
  auto r = solscope({"export", kDemo, "--format", "csv", "-o", path("out.csv")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::stringstream csv;
  csv << std::ifstream(path("out.csv")).rdbuf();
  EXPECT_EQ(lines_of(csv.str()).size(), 4801u) << "header + every sample";
  r = solscope({"export", kDemo, "--format", "jsonl"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(lines_of(r.out).size(), 4800u);
  r = solscope({"export", kDemo, "--format", "xml"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(CliTest, a_stop_signal_while_stdout_is_blocked_finishes_the_line_and_exits_0) {
  // Issue 10, item 14: `solscope replay X --json | less` with less not reading; a signal used to break the
  // blocked write: exit 1, "cannot write to standard output", half a line.
  const std::vector<std::pair<std::vector<std::string>, int>> cases{{{"--json", "--speed", "100"}, SIGTERM},
                                                                    {{"--json", "--speed", "100"}, SIGINT},
                                                                    {{"--json", "--speed", "100"}, SIGHUP},
                                                                    {{"--speed", "0"}, SIGTERM}};
  for (const auto& [mode, signo] : cases) {
    std::vector<std::string> argv{kBinary, "replay", kDemo, "--loop"};
    argv.insert(argv.end(), mode.begin(), mode.end());
    testing::StalledPipeProcess p(argv);
    // A pipe holds 16 pages; one write of a line per page (a sink that flushes each sample) fills it at ~20
    // KB.
    ASSERT_TRUE(p.wait_for_pending(16'000, 30s)) << "the pipe never filled: " << p.pending_stdout_bytes();
    std::this_thread::sleep_for(100ms);  // let the writer block in write(2)
    p.signal(signo);
    std::this_thread::sleep_for(200ms);  // the signal lands while the write waits (a reader at once hides it)
    const auto r = p.drain(60s);
    ASSERT_FALSE(r.timed_out) << "signal " << signo;
    EXPECT_EQ(r.exit_code, 0) << "signal " << signo << ": " << r.err;
    EXPECT_EQ(r.err.find("cannot write"), std::string::npos) << r.err;
    ASSERT_FALSE(r.out.empty());
    EXPECT_EQ(r.out.back(), '\n') << "the last line is complete";
    if (mode.front() == "--json") {
      for (const auto& line : lines_of(r.out)) {
        ASSERT_TRUE(line.size() > 2 && line.front() == '{' && line.back() == '}') << line;
      }
    }
  }
}

TEST_F(CliTest, escape_sequences_in_a_trace_do_not_reach_the_terminal) {
  // Issue 10, item 12: a device name and source description holding OSC "set title" and "clear screen".
  const std::string file = path("hostile.sqlite");
  std::filesystem::copy_file(kDemo, file);
  const std::string sql =
      "UPDATE devices SET name = name || char(27) || ']0;pwned' || char(7) || char(27) || "
      "'[2J'; UPDATE meta SET value = value || char(27) || '[2J' WHERE key = "
      "'source_description';";
  auto edited = run_process({"/usr/bin/sqlite3", file, sql}, 30s);
  if (edited.exit_code == 127) GTEST_SKIP() << "no sqlite3 command";
  ASSERT_EQ(edited.exit_code, 0) << edited.err;
  auto r = solscope({"replay", file, "--speed", "0"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "stdout carries a raw ESC";
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "stderr carries a raw ESC";
  EXPECT_EQ(r.out.find('\x07'), std::string::npos);
  EXPECT_NE(r.out.find("\\x1b]0;pwned\\x07\\x1b[2J"), std::string::npos) << r.out.substr(0, 600);
  EXPECT_NE(r.err.find("\\x1b[2J"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace solscope::app
