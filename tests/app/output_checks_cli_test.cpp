// End-to-end tests of the one output-path check (issue 18, defects 8 and 12): every output path of every
// command is refused with exit 2 before any work when its directory is missing, when it is a device, a FIFO
// or a directory, or when it exists (even empty) without --force; a full disk leaves no partial export and
// says "import again" for an import.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/process.hpp"
#include "support/solscope_cli.hpp"

namespace solscope::app {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const std::string kDemo = std::string(SOLSCOPE_TEST_DATA_DIR) + "/demo-trace.sqlite";
const std::string kDmon =
    std::string(SOLSCOPE_TEST_DATA_DIR) + "/synthetic/nvidia-smi-dmon/synthetic-date-time.txt";

auto read_text(const std::string& path) -> std::string {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

auto entries_of(const fs::path& dir) -> int {
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir)) ++entries;
  return entries;
}

class OutputChecksCliTest : public testing::SolscopeCliTest {
 protected:
  OutputChecksCliTest() : SolscopeCliTest(SOLSCOPE_BINARY, "solscope-outcheck") {}
  auto solscope(std::vector<std::string> args) const -> testing::ProcessResult {
    return SolscopeCliTest::solscope(std::move(args), 30s);
  }
  /// Runs solscope with `args` under a file size limit of `limit_kib` (a full disk without root or mounts:
  /// write(2) fails with EFBIG once the file reaches it, SIGXFSZ ignored).
  [[nodiscard]] auto solscope_on_full_disk(const std::string& args, int limit_kib) const
      -> testing::ProcessResult {
    const std::string command =
        "trap '' XFSZ; ulimit -f " + std::to_string(limit_kib) + "; exec '" + binary_ + "' " + args;
    return testing::run_process({"/bin/bash", "-c", command}, 60s);
  }
};

/// The command lines that write `out`: one per output path of every command.
auto commands_writing(const std::string& out, const std::string& marker)
    -> std::vector<std::vector<std::string>> {
  return {{"record", "--replay", kDemo, "--speed", "0", "-o", out, "--force"},
          {"run", "--no-kernels", "-o", out, "--force", "--", "sh", "-c", "touch '" + marker + "'"},
          {"run", "--no-kernels", "--html", out, "--force", "--", "sh", "-c", "touch '" + marker + "'"},
          {"import", kDmon, "-o", out, "--force"},
          {"export", kDemo, "-o", out, "--force"},
          {"report", kDemo, "--html", out, "--force"}};
}

TEST_F(OutputChecksCliTest, every_output_path_is_refused_with_2_before_any_work) {
  // Before: `run --html /missing/dir/r.html` ran the command and exited 0; `run -o /missing/dir/x.sqlite`
  // exited 1; `import -o /dev/null` and `import -o FIFO` exited 1 (a directory: 2).
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  fs::create_directories(path("dir"));
  const std::string ran = path("ran");
  const std::vector<std::pair<std::string, std::string>> cases{
      {path("missing/dir/out"), "directory " + path("missing/dir") + " does not exist"},
      {"/dev/null", "output /dev/null is a character device, not a regular file"},
      {path("fifo"), "output " + path("fifo") + " is a FIFO, not a regular file"},
      {path("dir"), "output " + path("dir") + " is a directory"}};
  for (const auto& [out, why] : cases) {
    for (const auto& args : commands_writing(out, ran)) {
      const auto r = solscope(args);
      const std::string what = args[0] + " " + out;
      EXPECT_FALSE(r.timed_out) << what;
      EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.err;
      EXPECT_NE(r.err.find("solscope: error: "), std::string::npos) << what << "\n" << r.err;
      EXPECT_NE(r.err.find(why), std::string::npos) << what << "\n" << r.err;
      EXPECT_EQ(r.err.find("samples"), std::string::npos) << what << ": nothing was read or sampled\n"
                                                          << r.err;
      EXPECT_FALSE(fs::exists(ran)) << what << ": the command must not run";
    }
  }
  EXPECT_EQ(entries_of(dir_), 2) << "nothing was created beside the FIFO and the directory";
  EXPECT_EQ(entries_of(path("dir")), 0);
}

TEST_F(OutputChecksCliTest, an_existing_empty_file_is_kept_without_force) {
  // Before: import and export wrote over an existing empty file without --force (exit 0).
  for (const auto& args : commands_writing(path("empty"), path("ran"))) {
    std::ofstream(path("empty")).close();
    std::vector<std::string> without_force = args;
    std::erase(without_force, std::string("--force"));
    const auto r = solscope(without_force);
    EXPECT_EQ(r.exit_code, 2) << args[0] << "\n" << r.err;
    EXPECT_NE(r.err.find("output " + path("empty") + " already exists. choose another path, or add --force"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(fs::file_size(path("empty")), 0u) << args[0];
    EXPECT_FALSE(fs::exists(path("ran"))) << args[0];
  }
  const auto forced = solscope({"import", kDmon, "-o", path("empty"), "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_GT(fs::file_size(path("empty")), 0u);
}

TEST_F(OutputChecksCliTest, an_export_that_meets_a_full_disk_leaves_no_partial_file) {
  // Before: exit 1 and a 100 KiB partial CSV at the output path (and an existing file was cut).
  for (const std::string format : {"csv", "jsonl"}) {
    auto r =
        solscope_on_full_disk("export '" + kDemo + "' --format " + format + " -o '" + path("out") + "'", 100);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.err.find("check free space"), std::string::npos) << r.err;
    EXPECT_EQ(entries_of(dir_), 0) << format << ": neither the output nor its temporary file is left";

    std::ofstream(path("old")) << "keep me\n";
    r = solscope_on_full_disk(
        "export '" + kDemo + "' --format " + format + " -o '" + path("old") + "' --force", 100);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(read_text(path("old")), "keep me\n") << "a failed export leaves the old file as it was";
    EXPECT_EQ(entries_of(dir_), 1);
    fs::remove(path("old"));
  }
  // Room enough: the whole export is at the path, and nothing else.
  const auto r = solscope({"export", kDemo, "-o", path("all.csv")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string csv = read_text(path("all.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4801) << "header and 4800 samples";
  EXPECT_EQ(entries_of(dir_), 1);
}

TEST_F(OutputChecksCliTest, an_import_that_meets_a_full_disk_says_the_disk_is_full_and_to_import_again) {
  // 20,000 seconds of two GPUs: a trace far larger than the limit below.
  {
    std::ofstream dmon(path("big.txt"));
    dmon << "#Date       Time        gpu    pwr   sm  smutil  mmaact  dram\n"
            "#YYYYMMDD   HH:MM:SS    Idx      W    %   GPM:%   GPM:% GPM:%\n";
    for (int i = 0; i < 20000; ++i) {
      char time[16];
      std::snprintf(time, sizeof time, "%02d:%02d:%02d", i / 3600, (i / 60) % 60, i % 60);
      for (int gpu = 0; gpu < 2; ++gpu)
        dmon << " 20250301   " << time << "      " << gpu << "    500   99     90      62    35\n";
    }
  }
  for (const int limit_kib : {64, 400}) {
    const auto r =
        solscope_on_full_disk("import '" + path("big.txt") + "' -o '" + path("t.sqlite") + "'", limit_kib);
    // Before: "... disk I/O error; the trace keeps the 34 samples committed before ... and record again", and
    // the trace was removed all the same.
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(
        r.err.find("solscope: error: cannot import " + path("big.txt") + " into " + path("t.sqlite") +
                   ": the disk is full; the partial trace was removed. free space on the filesystem of " +
                   path("t.sqlite") + " and import again"),
        std::string::npos)
        << limit_kib << "\n"
        << r.err;
    EXPECT_EQ(r.err.find("record again"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("keeps"), std::string::npos) << r.err;
    EXPECT_EQ(entries_of(dir_), 1) << "only the input is left";
  }
}

}  // namespace
}  // namespace solscope::app
