// End-to-end tests of `solscope run -- CMD` with the built binary (no GPU here: sampling falls back and the
// command still runs): exit codes, signal forwarding to the command's process group, the trace's metadata,
// the temporary trace, bad usage.
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "inject/kernel_wire.hpp"
#include "runtime/signals.hpp"
#include "support/process.hpp"
#include "support/scratch_dir.hpp"
#include "trace/reader.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
using testing::run_process;
namespace fs = std::filesystem;

const std::string kBinary = SOLSCOPE_BINARY;

auto read_text(const fs::path& path) -> std::string {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

auto wait_for_file(const fs::path& path, std::chrono::milliseconds timeout) -> bool {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (!fs::exists(path)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

class RunCliTest : public ::testing::Test {
 protected:
  void SetUp() override { fs::create_directories(dir_ / "tmp"); }
  [[nodiscard]] auto path(const std::string& name) const -> std::string { return (dir_ / name).string(); }
  /// `solscope run ARGS...` with TMPDIR in the test's directory.
  [[nodiscard]] auto run(std::vector<std::string> args) const -> testing::ProcessResult {
    args.insert(args.begin(), {kBinary, "run"});
    return run_process(args, 60s, {"TMPDIR=" + path("tmp")});
  }
  /// Entries of the test's TMPDIR (temporary traces left behind).
  [[nodiscard]] auto temp_entries() const -> int {
    return static_cast<int>(std::distance(fs::directory_iterator(dir_ / "tmp"), fs::directory_iterator()));
  }
  testing::ScratchDir scratch_{"solscope-run"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(RunCliTest, exits_with_the_commands_exit_code_and_removes_the_temporary_trace) {
  for (const auto& [script, code] : std::vector<std::pair<std::string, int>>{{"exit 0", 0}, {"exit 3", 3}}) {
    const auto r = run({"--", "sh", "-c", script});
    EXPECT_EQ(r.exit_code, code) << r.err;
    EXPECT_NE(r.err.find("no GPU is sampled"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("solscope: run: 0 samples of 0 GPU(s)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("the trace is at"), std::string::npos) << r.err;
  }
  EXPECT_EQ(temp_entries(), 0) << "the temporary traces are removed";
}

TEST_F(RunCliTest, a_command_killed_by_a_signal_gives_128_plus_the_signal) {
  const auto r = run({"--no-kernels", "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
}

TEST_F(RunCliTest, an_ignored_sigchld_inherited_by_solscope_does_not_hide_the_commands_exit) {
  // `env --ignore-signal=CHLD` starts solscope with SIGCHLD ignored (as some launchers do): the kernel would
  // then reap the command by itself and run would wait for it forever.
  const auto r = run({"--no-kernels", "--", "sh", "-c", "exit 3"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const auto ignored = run_process(
      {"/usr/bin/env", "--ignore-signal=CHLD", kBinary, "run", "--no-kernels", "--", "sh", "-c", "exit 3"},
      20s, {"TMPDIR=" + path("tmp")});
  EXPECT_EQ(ignored.exit_code, 3) << ignored.err;
  EXPECT_EQ(temp_entries(), 0) << "it ended normally: its temporary trace is removed";
}

TEST_F(RunCliTest, the_commands_output_and_arguments_pass_through) {
  const auto r =
      run({"--no-kernels", "--", "sh", "-c", "echo \"$1|$2\"; echo oops >&2", "sh", "a b", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a b|--json\n");
  EXPECT_NE(r.err.find("oops\n"), std::string::npos);
}

TEST_F(RunCliTest, with_o_the_trace_keeps_the_jobs_metadata) {
  const std::string trace = path("job.sqlite");
  const auto r = run({"-o", trace, "--", "sh", "-c", "exit 3", "it's"});
  ASSERT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("the trace is at " + trace), std::string::npos) << r.err;
  auto reader = trace::Reader::open(trace);
  ASSERT_TRUE(reader) << reader.error().describe();
  const auto& meta = reader->metadata().entries;
  EXPECT_EQ(meta.at("command"), "sh -c 'exit 3' 'it'\\''s'");
  EXPECT_EQ(meta.at("exit_status"), "exit 3");
  EXPECT_EQ(meta.at("exit_code"), "3");
  EXPECT_EQ(meta.at("cuda_visible_devices"), "(unset)");
  EXPECT_EQ(meta.at("gpus_used"), "");
  EXPECT_FALSE(reader->metadata().synthetic);
  EXPECT_NE(reader->metadata().source_description.find("without GPU sampling"), std::string::npos);
  const auto start = std::stoll(meta.at("run_start_ns"));
  const auto end = std::stoll(meta.at("run_end_ns"));
  EXPECT_GE(end, start);
  EXPECT_LT(end - start, 60'000'000'000);
  EXPECT_EQ(reader->sample_count(), 0u);
  // Replacing it needs --force; the refusal is a bad command line and runs nothing.
  const auto again = run({"-o", trace, "--", "sh", "-c", "touch " + path("ran")});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_FALSE(fs::exists(path("ran")));
  const auto forced = run({"-o", trace, "--force", "--", "env"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
}

TEST_F(RunCliTest, cuda_visible_devices_is_summarised) {
  const std::string trace = path("cvd.sqlite");
  const auto r = run_process({kBinary, "run", "--no-kernels", "-o", trace, "--", "true"}, 60s,
                             {"CUDA_VISIBLE_DEVICES=1,3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto reader = trace::Reader::open(trace);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->metadata().entries.at("cuda_visible_devices"), "1,3");
}

TEST_F(RunCliTest, sigterm_to_solscope_reaches_every_process_of_the_commands_group) {
  // The command and a background child of it both trap SIGTERM and write a file; the command then exits 7,
  // which solscope returns.
  const std::string script =
      "(trap 'echo child > " + path("child") + "; exit 0' TERM; touch " + path("child-ready") +
      "; while :; do sleep 0.05; done) & "
      "trap 'echo parent > " +
      path("parent") + "; wait; exit 7' TERM; touch " + path("ready") + "; while :; do sleep 0.05; done";
  testing::BackgroundProcess solscope({kBinary, "run", "--no-kernels", "--", "sh", "-c", script},
                                      path("out.txt"), path("err.txt"));
  ASSERT_TRUE(wait_for_file(path("ready"), 20s)) << read_text(path("err.txt"));
  ASSERT_TRUE(wait_for_file(path("child-ready"), 20s));
  solscope.signal(SIGTERM);
  EXPECT_EQ(solscope.wait(20s), 7) << read_text(path("err.txt"));
  EXPECT_EQ(read_text(path("parent")), "parent\n");
  EXPECT_EQ(read_text(path("child")), "child\n");
}

TEST_F(RunCliTest, sigint_is_forwarded_and_the_default_action_ends_the_command) {
  testing::BackgroundProcess solscope(
      {kBinary, "run", "--no-kernels", "--", "sh", "-c", "touch " + path("ready") + "; exec sleep 30"},
      path("out.txt"), path("err.txt"));
  ASSERT_TRUE(wait_for_file(path("ready"), 20s));
  std::this_thread::sleep_for(100ms);  // the exec of sleep
  solscope.signal(SIGINT);
  EXPECT_EQ(solscope.wait(20s), 128 + SIGINT) << read_text(path("err.txt"));
}

TEST_F(RunCliTest, the_third_stop_signal_kills_a_command_that_survives_them) {
  // The command traps SIGTERM and SIGINT (writes a line, carries on); the first two are forwarded as they
  // are, the third becomes SIGKILL of its group, so solscope returns 128 + 9 instead of waiting forever.
  // Each signal is sent once the command has seen the one before (pending signals of one kind merge); one
  // not seen within 2 s (under load, or sent while solscope was still starting the command) is sent again.
  const std::string seen = path("seen");
  testing::BackgroundProcess solscope(
      {kBinary, "run", "--no-kernels", "--", "sh", "-c",
       "trap 'echo >> " + seen + "' TERM INT; touch " + path("ready") + "; while :; do sleep 0.05; done"},
      path("out.txt"), path("err.txt"));
  ASSERT_TRUE(wait_for_file(path("ready"), 20s));
  auto lines_seen = [&] {
    const std::string text = read_text(seen);
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  auto ended = [&] { return read_text(path("err.txt")).find("run: 0 samples") != std::string::npos; };
  for (int sent = 0; sent < 12 && !ended(); ++sent) {
    const int before = lines_seen();
    solscope.signal(sent % 2 == 0 ? SIGTERM : SIGINT);
    const auto until = std::chrono::steady_clock::now() + 2s;
    while (lines_seen() == before && !ended() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(20ms);
    }
  }
  EXPECT_EQ(solscope.wait(20s), 128 + SIGKILL) << read_text(path("err.txt"));
  EXPECT_TRUE(ended()) << "solscope itself ended and closed the trace: " << read_text(path("err.txt"));
  EXPECT_GE(lines_seen(), 1);
  EXPECT_LE(lines_seen(), kForwardsBeforeKill - 1) << "the third forwarded signal is SIGKILL";
}

/// Runs `argv` on a new pseudo-terminal and types `input` once the output shows `after` (at once when empty);
/// returns (exit code, terminal output).
auto run_on_terminal(const std::vector<std::string>& argv, const std::string& input,
                     const std::string& after = {}) -> std::pair<int, std::string> {
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  if (pid < 0) return {-1, "forkpty failed"};
  std::string output;
  bool typed = false;
  const auto type = [&] {
    if (!typed && output.find(after) != std::string::npos) {
      (void)!::write(master, input.data(), input.size());  // a line waits in the terminal until read
      typed = true;
    }
  };
  type();
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t got = ::read(master, buffer.data(), buffer.size());
    if (got <= 0) break;  // EIO once every process on the terminal has gone
    output.append(buffer.data(), static_cast<std::size_t>(got));
    type();
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), output};
}

TEST_F(RunCliTest, on_a_terminal_the_command_reads_it_and_ctrl_c_reaches_it) {
  // The command's own process group gets the terminal: a background group reading it would be stopped.
  auto [code, output] = run_on_terminal(
      {kBinary, "run", "--no-kernels", "--", "sh", "-c", "read x; echo got:$x; exit 5"}, "hello\n");
  EXPECT_EQ(code, 5) << output;
  EXPECT_NE(output.find("got:hello"), std::string::npos) << output;
  // Ctrl-C typed on the terminal (once the command runs) reaches the command's group, the foreground one.
  std::tie(code, output) = run_on_terminal(
      {kBinary, "run", "--no-kernels", "--", "sh", "-c", "echo ready; exec sleep 30"}, "\x03", "ready");
  EXPECT_EQ(code, 128 + SIGINT) << output;
}

TEST_F(RunCliTest, bad_usage_is_exit_2_with_how_to_give_the_command) {
  auto r = run({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run needs a command after `--`"), std::string::npos) << r.err;
  r = run({"--"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run needs a command after `--`"), std::string::npos) << r.err;
  r = run({"echo", "hi"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run takes its command after `--`"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-- echo hi"), std::string::npos) << r.err;
  r = run({"--interval", "nan", "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(temp_entries(), 0);
}

TEST_F(RunCliTest, a_command_that_cannot_start_is_127_or_126) {
  auto r = run({"--no-kernels", "--", "solscope-no-such-command"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("cannot run solscope-no-such-command: no such command in PATH"), std::string::npos)
      << r.err;
  std::ofstream(path("not-executable")) << "#!/bin/sh\n";
  r = run({"--no-kernels", "--", path("not-executable")});
  EXPECT_EQ(r.exit_code, 126) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  EXPECT_EQ(temp_entries(), 0);
}

TEST_F(RunCliTest, kernel_records_written_by_the_command_reach_the_recorder) {
  const fs::path library = fs::path(kBinary).parent_path() / inject::kInjectLibraryName;
  if (!fs::exists(library)) GTEST_SKIP() << "no injection library in this build (no CUPTI headers)";
  // The command plays the injection library: it writes frames to SOLSCOPE_KERNEL_FD. Their GPU UUID is no
  // GPU's (there is no GPU here), so every kernel is counted as unplaced; the job's own drop totals add 3.
  inject::FrameEncoder encoder(4242);
  const std::array<std::uint8_t, 16> uuid{0xde, 0xad};
  ASSERT_TRUE(encoder.add(inject::Device{0, uuid}));
  ASSERT_TRUE(encoder.add(inject::Clock{1000, 1'767'225'600'000'000'000}));
  for (std::uint64_t i = 0; i < 3; ++i) {
    inject::Kernel k;
    k.start_cupti_ns = 2000 + i;
    k.end_cupti_ns = 3000 + i;
    k.name = "k";
    ASSERT_TRUE(encoder.add(k));
  }
  ASSERT_TRUE(encoder.add(inject::Dropped{2, 1}));
  // One NVTX range of thread 7, CUPTI ns 1500-2500: on the samples' clock from the frame's Clock.
  ASSERT_TRUE(encoder.add(inject::Marker{
      .start_cupti_ns = 1500, .end_cupti_ns = 2500, .tid = 7, .depth = 0, .domain = "", .name = "step"}));
  const auto frame = encoder.finish();
  std::ofstream(path("frames.bin"), std::ios::binary)
      .write(reinterpret_cast<const char*>(frame.data()), static_cast<std::streamsize>(frame.size()));
  const std::string trace = path("k.sqlite");
  const std::string lib = fs::weakly_canonical(library).string();
  const auto r =
      run({"-o", trace, "--", "sh", "-c",
           "test \"$CUDA_INJECTION64_PATH\" = \"" + lib + "\" && test \"$NVTX_INJECTION64_PATH\" = \"" + lib +
               "\" && cat " + path("frames.bin") + " > /dev/fd/$SOLSCOPE_KERNEL_FD"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.err.find("6 kernel records were lost (3 in the job's buffers, 0 in solscope's queue, 3 without a "
                 "clock or a known GPU)"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("0 kernels (6 dropped)"), std::string::npos) << r.err;
  auto reader = trace::Reader::open(trace);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->metadata().kernel_log, "cupti");
  EXPECT_EQ(reader->metadata().kernels_dropped, 6u);
  EXPECT_EQ(reader->metadata().kernel_clock_offset_ns,
            std::optional<std::int64_t>(1'767'225'600'000'000'000 - 1000));
  EXPECT_EQ(reader->metadata().entries.at("nvtx"), "injection");
  auto markers = reader->markers();
  ASSERT_TRUE(markers);
  ASSERT_EQ(markers->rows.size(), 1u);
  EXPECT_EQ(markers->rows[0].pid, 4242);
  EXPECT_EQ(markers->rows[0].start_ns, 1'767'225'600'000'000'500);
  EXPECT_EQ(markers->rows[0].end_ns, 1'767'225'600'000'001'500);
  EXPECT_EQ(markers->rows[0].name, "step");
  // --no-kernels: no library, no pipe, no kernel log.
  const auto plain = run({"--no-kernels", "-o", path("n.sqlite"), "--", "sh", "-c",
                          "test -z \"$CUDA_INJECTION64_PATH$SOLSCOPE_KERNEL_FD$NVTX_INJECTION64_PATH\""});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  auto none = trace::Reader::open(path("n.sqlite"));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->metadata().kernel_log, "");
}

TEST_F(RunCliTest, a_background_process_holding_the_kernel_pipe_does_not_keep_run_or_its_end_time) {
  const fs::path library = fs::path(kBinary).parent_path() / inject::kInjectLibraryName;
  if (!fs::exists(library)) GTEST_SKIP() << "no injection library in this build (no CUPTI headers)";
  // The command leaves a daemon behind that holds the kernel pipe open (inherited) for 4 s; run still ends
  // once the kernel log's grace (2 s) is over, and run_end_ns is when the command itself ended (written by
  // the command just before it exits), not after that grace.
  const std::string trace = path("d.sqlite");
  const auto r = run({"-o", trace, "--", "sh", "-c", "sleep 4 & date +%s%N > " + path("ended") + "; exit 5"});
  ASSERT_EQ(r.exit_code, 5) << r.err;
  auto reader = trace::Reader::open(trace);
  ASSERT_TRUE(reader);
  const auto ended = std::stoll(read_text(path("ended")));
  const auto end = std::stoll(reader->metadata().entries.at("run_end_ns"));
  EXPECT_GE(end, ended);
  EXPECT_LT(end - ended, 1'900'000'000) << "run_end_ns must not include the kernel log's 2 s grace";
}

TEST_F(RunCliTest, html_writes_the_report_page_and_the_temporary_trace_is_still_removed) {
  const auto r = run({"--html", path("r.html"), "--", "sh", "-c", "exit 4"});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  const std::string page = read_text(path("r.html"));
  EXPECT_NE(page.find("<!doctype html>"), std::string::npos) << page.substr(0, 200);
  EXPECT_NE(page.find("\"exit_status\":\"exit 4\""), std::string::npos) << "the run facts are inlined";
  EXPECT_EQ(temp_entries(), 0) << "the HTML page does not need the trace";
}

TEST_F(RunCliTest, a_refused_html_path_stops_before_the_command_runs) {
  std::ofstream(path("old.html")) << "keep me";
  const auto r = run({"--html", path("old.html"), "--", "sh", "-c", "touch " + path("ran")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("already exists"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("ran"))) << "the command must not run";
  EXPECT_EQ(read_text(path("old.html")), "keep me");
  const auto same = run({"-o", path("t.sqlite"), "--html", path("t.sqlite"), "--force", "--", "true"});
  EXPECT_EQ(same.exit_code, 2) << same.err;
  EXPECT_FALSE(fs::exists(path("t.sqlite")));
}

}  // namespace
}  // namespace solscope::app
