// The damage campaign (issue 18, defect 2; run by CI as the ctest trace.damage_campaign): copies of the demo
// trace and of a kernels trace, each with random multi-byte damage at random offsets (a fixed seed), must
// either be refused at open with a clear error, or read to the end without a crash with rows read + rows
// skipped = the table's rows before the damage, for the samples and for the kernels.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "trace/damage_fixtures.hpp"
#include "trace/reader.hpp"
#include "trace/trace_test_support.hpp"

namespace solscope::trace {
namespace {

using testing::TempDir;

/// Files per trace, and the damage of each: 1 to kMaxSites runs of 2 to kMaxRunBytes random bytes.
constexpr int kFilesPerTrace = 60;
constexpr std::uint64_t kMaxSites = 4;
constexpr std::uint64_t kMaxRunBytes = 24;
constexpr std::uint64_t kSeed = 20261126;

/// What a campaign found, for the summary line.
struct Tally {
  int refused = 0;
  int intact = 0;
  int damaged = 0;
};

/// `bytes` with 1 to kMaxSites runs of random bytes written at random offsets past the 100-byte file header
/// (damage there is a refusal the other tests cover).
auto spoil(std::vector<char> bytes, std::mt19937_64& rng) -> std::vector<char> {
  const std::uint64_t sites = 1 + rng() % kMaxSites;
  for (std::uint64_t s = 0; s < sites; ++s) {
    const std::uint64_t length = 2 + rng() % (kMaxRunBytes - 1);
    const std::uint64_t at = 100 + rng() % (bytes.size() - 100 - length);
    for (std::uint64_t i = 0; i < length; ++i) bytes[at + i] = static_cast<char>(rng());
  }
  return bytes;
}

/// Opens `path`: a refusal must be a documented one (exit 5 or "not a solscope trace") naming the file; a
/// trace that opens must keep the counting rule for its samples (`samples`) and, when `kernels` is nonzero,
/// its kernels (unless the kernels table's schema entry is damaged and the note says none can be read).
void check_file(const std::filesystem::path& path, std::uint64_t samples, std::uint64_t kernels,
                const std::string& context, Tally& tally) {
  auto reader = Reader::open(path);
  if (!reader) {
    const auto code = reader.error().code;
    EXPECT_TRUE(code == core::ErrorCode::DataLoss || code == core::ErrorCode::InvalidArgument ||
                code == core::ErrorCode::Unimplemented)
        << context << ": " << reader.error().describe();
    EXPECT_NE(reader.error().message.find(path.string()), std::string::npos)
        << context << ": the error names the file: " << reader.error().message;
    ++tally.refused;
    return;
  }
  auto summary = reader->for_each_sol({}, [](const core::SolSample&) { return true; });
  ASSERT_TRUE(summary) << context << ": " << summary.error().describe();
  EXPECT_EQ(summary->samples + summary->report.skipped_rows, samples) << context << ": " << summary->note;
  bool damaged = summary->report.damaged();
  if (kernels > 0) {
    auto table = reader->kernels();
    ASSERT_TRUE(table) << context << ": " << table.error().describe();
    const KernelReadReport& r = table->report;
    // A table whose schema entry is damaged cannot be counted at all: it must then say that nothing of it
    // could be read.
    const bool unreadable = !r.table_rows && r.stopped && r.kernels == 0 && !table->note.empty();
    if (!unreadable) {
      EXPECT_EQ(r.kernels + r.skipped_rows, kernels) << context << ": " << table->note;
    }
    EXPECT_EQ(table->kernels.size(), table->report.kernels) << context;
    damaged = damaged || table->report.damaged();
  }
  ++(damaged ? tally.damaged : tally.intact);
}

void run_campaign(const std::filesystem::path& original, std::uint64_t samples, std::uint64_t kernels,
                  std::uint64_t seed, const TempDir& dir) {
  const auto bytes = testing::read_bytes(original);
  ASSERT_GT(bytes.size(), 4096U);
  std::mt19937_64 rng(seed);
  Tally tally;
  for (int n = 0; n < kFilesPerTrace; ++n) {
    const auto path = dir.file("spoiled-" + std::to_string(n) + ".sqlite");
    const auto spoiled = spoil(bytes, rng);
    testing::write_bytes(path, spoiled, spoiled.size());
    check_file(path, samples, kernels, original.filename().string() + " copy " + std::to_string(n), tally);
    std::filesystem::remove(path);
  }
  std::printf("%s: %d refused at open, %d read clean, %d read with damage counted\n",
              original.filename().c_str(), tally.refused, tally.intact, tally.damaged);
  EXPECT_GT(tally.damaged, kFilesPerTrace / 4) << "the campaign must actually hit rows";
}

TEST(DamageCampaign, the_demo_trace_keeps_the_counting_rule_under_random_damage) {
  TempDir dir;
  run_campaign(testing::kDemoTrace, testing::kDemoTraceSamples, 0, kSeed, dir);
}

TEST(DamageCampaign, a_kernels_trace_keeps_the_counting_rule_under_random_damage) {
  TempDir dir;
  const auto path = dir.file("kernels.sqlite");
  testing::write_kernels_trace(path);
  run_campaign(path, testing::kKernelTraceDevices * testing::kKernelTraceSamplesPerDevice,
               testing::kKernelTraceKernels, kSeed + 1, dir);
}

}  // namespace
}  // namespace solscope::trace
