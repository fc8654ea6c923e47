// The direct JSON text writer of a sample (wire::append_sol_sample_json, issue 18 defect 14) writes the same
// bytes as the document path (json_text(sol_sample_to_json(...)): dump with the replacing error handler),
// over many random samples with NaN, infinities, signed zeros, extreme exponents and odd or invalid UTF-8
// UUIDs; and its string and number pieces match nlohmann's own serializer on random input.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "core/metric_catalog.hpp"
#include "core/sol_sample.hpp"
#include "wire/detail/json_escape.hpp"
#include "wire/json_text.hpp"
#include "wire/sample_json.hpp"

namespace solscope::wire {
namespace {

constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;

auto dom_bytes(const core::SolSample& s, const core::DeviceInfo* device) -> std::string {
  return json_text(sol_sample_to_json(s, device));
}

auto text_bytes(const core::SolSample& s, const core::DeviceInfo* device) -> std::string {
  std::string out;
  append_sol_sample_json(out, s, device);
  return out;
}

/// A double from a mix of the cases that print differently: NaN, infinities, zeros, whole numbers, the 15/16
/// digit border, tiny and huge exponents, denormals, and random bit patterns.
auto odd_double(std::mt19937_64& rng) -> double {
  constexpr double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 0.0,
                                 -0.0,
                                 1.0,
                                 42.0,
                                 100.0,
                                 0.1,
                                 1e15,
                                 1e16,
                                 123456789012345.0,
                                 1234567890123456.0,
                                 1e-4,
                                 1e-5,
                                 0.00012345,
                                 1e300,
                                 -1e-300,
                                 std::numeric_limits<double>::denorm_min(),
                                 std::numeric_limits<double>::max(),
                                 std::numeric_limits<double>::lowest()};
  switch (rng() % 4) {
    case 0:
      return kSpecial[rng() % std::size(kSpecial)];
    case 1:
      return std::bit_cast<double>(rng());
    case 2:
      return static_cast<double>(rng() % 10001) / 100.0;  // a percentage with two decimals
    default:
      return std::ldexp(static_cast<double>(rng() % 1000000), static_cast<int>(rng() % 200) - 100);
  }
}

/// A string of random bytes biased to the hard cases: control characters, quote, backslash, DEL, valid
/// multi-byte UTF-8 and every kind of invalid or cut-off sequence.
auto odd_string(std::mt19937_64& rng) -> std::string {
  static const std::string kPieces[] = {"GPU-",
                                        "\"",
                                        "\\",
                                        "\x01",
                                        "\x1f",
                                        "\x7f",
                                        "\b\t\n\f\r",
                                        "é",
                                        "€",
                                        "😀",
                                        "\xc3",
                                        "\xe2\x82",
                                        "\xf0\x9f\x98",
                                        "\x80",
                                        "\xbf",
                                        "\xc0\xaf",
                                        "\xc1\x81",
                                        "\xe0\x80\x80",
                                        "\xed\xa0\x80",
                                        "\xf4\x90\x80\x80",
                                        "\xf5",
                                        "\xff",
                                        "=HYPERLINK(\"x\")"};
  std::string s;
  const auto parts = rng() % 8;
  for (std::uint64_t i = 0; i < parts; ++i) {
    if (rng() % 3 == 0) {
      s += static_cast<char>(rng() % 256);
    } else {
      s += kPieces[rng() % std::size(kPieces)];
    }
  }
  return s;
}

auto random_sample(std::mt19937_64& rng) -> core::SolSample {
  core::SolSample s;
  s.device_index = static_cast<std::uint32_t>(rng());
  s.t_start_ns = static_cast<std::int64_t>(rng());
  s.t_end_ns = static_cast<std::int64_t>(rng());
  s.source = static_cast<core::SourceKind>(rng() % 7);
  s.flags = static_cast<std::uint32_t>(rng());
  s.pm_pause =
      static_cast<core::PmPauseReason>(rng() % static_cast<std::uint64_t>(core::PmPauseReason::kCount));
  s.compute_sol_pct = odd_double(rng);
  s.compute_pipe = static_cast<core::Pipe>(rng() % (core::kPipeCount + 1));
  s.memory_sol_pct = odd_double(rng);
  s.memory_path = static_cast<core::MemPath>(rng() % (core::kMemPathCount + 1));
  s.bound = static_cast<core::Bound>(rng() % 5);
  for (double& v : s.pipe_pct) v = odd_double(rng);
  for (double& v : s.path_pct) v = odd_double(rng);
  s.dram_bytes_per_s = odd_double(rng);
  s.attainable_compute_sol_pct = odd_double(rng);
  s.attainable_memory_sol_pct = odd_double(rng);
  s.attainable_limiter = static_cast<core::Limiter>(rng() % (core::kLimiterCount + 1));
  for (double& v : s.metrics) v = odd_double(rng);
  return s;
}

TEST(SampleTextTest, writes_the_bytes_of_the_document_path_for_many_random_samples) {
  std::mt19937_64 rng(18);
  for (int i = 0; i < 5000; ++i) {
    const core::SolSample s = random_sample(rng);
    core::DeviceInfo device;
    device.uuid = odd_string(rng);
    const core::DeviceInfo* maybe = rng() % 4 == 0 ? nullptr : &device;
    const std::string expected = dom_bytes(s, maybe);
    ASSERT_EQ(text_bytes(s, maybe), expected) << "sample " << i;
  }
}

TEST(SampleTextTest, a_default_sample_is_all_null_and_parses_back) {
  const core::SolSample s;
  const std::string text = text_bytes(s, nullptr);
  EXPECT_EQ(text, dom_bytes(s, nullptr));
  const auto json = nlohmann::json::parse(text);
  EXPECT_TRUE(json.at("compute_sol_pct").is_null());
  EXPECT_TRUE(json.at("compute_pipe").is_null());
  EXPECT_TRUE(json.at("pipes").at("tensor").is_null());
  EXPECT_TRUE(json.at("attainable_limiter").is_null());
  EXPECT_TRUE(json.at("attainable_compute_gap_pts").is_null());
  EXPECT_EQ(json.at("pm_pause"), "none") << "not paused: the reason is written as none, never left out";
  // 16 fields (pm_pause included), the attainable limiter and its two gaps, then the catalog.
  EXPECT_EQ(json.size(), 19u + core::metric_catalog().size());
}

TEST(JsonTextTest, strings_match_nlohmanns_replacing_serializer_on_random_bytes) {
  std::mt19937_64 rng(316);
  for (int i = 0; i < 100000; ++i) {
    const std::string s = odd_string(rng);
    std::string out;
    detail::append_json_string(out, s);
    ASSERT_EQ(out, nlohmann::json(s).dump(-1, ' ', false, kReplace)) << "case " << i;
  }
  std::string out;
  detail::append_json_string(out, "a\"b\\c\x01\x7f\xc3");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\u0001\x7f\xEF\xBF\xBD\"");
}

TEST(JsonTextTest, numbers_match_nlohmanns_serializer) {
  std::mt19937_64 rng(64);
  for (int i = 0; i < 100000; ++i) {
    const double v = odd_double(rng);
    std::string out;
    detail::append_json_number(out, v);
    ASSERT_EQ(out, nlohmann::json(v).dump()) << v;
  }
}

}  // namespace
}  // namespace solscope::wire
