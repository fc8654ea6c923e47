// Shared pieces of the server tests: a LiveState with synthetic samples, and a live server on an ephemeral
// loopback port.
#pragma once

#include <array>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/live_state.hpp"
#include "server/server.hpp"
#include "support/text_lines.hpp"

namespace solscope::server::testing {

/// A SYNTHETIC device (no GPU measured it).
inline auto synthetic_device(std::uint32_t index) -> core::DeviceState {
  core::DeviceState d;
  d.info.index = index;
  d.info.uuid = "GPU-SYNTHETIC-" + std::to_string(index);
  d.info.name = "SYNTHETIC test GPU";
  d.info.chip = "GH100";
  d.info.pci_bus_id = "00000000:1" + std::to_string(index) + ":00.0";
  d.info.dram_peak_bytes_per_s = 3.35e12;
  d.source = core::SourceKind::Replay;
  return d;
}

/// A SYNTHETIC sample of `device` over [t_ns, t_ns + 100 ms): tensor pipe at `tensor_pct`, DRAM at 50 %, SM
/// clock 1500 MHz, everything else unknown.
inline auto synthetic_sample(std::uint32_t device, std::int64_t t_ns, double tensor_pct) -> core::SolSample {
  core::SolSample s;
  s.device_index = device;
  s.t_start_ns = t_ns;
  s.t_end_ns = t_ns + 100'000'000;
  s.source = core::SourceKind::Replay;
  s.compute_sol_pct = tensor_pct;
  s.compute_pipe = core::Pipe::Tensor;
  s.pipe_pct[static_cast<std::size_t>(core::Pipe::Tensor)] = tensor_pct;
  s.memory_sol_pct = 50.0;
  s.memory_path = core::MemPath::Dram;
  s.path_pct[static_cast<std::size_t>(core::MemPath::Dram)] = 50.0;
  s.bound = core::Bound::Compute;
  s.metrics[core::index_of(core::MetricId::SmClockMhz)] = 1500.0;
  return s;
}

/// A SYNTHETIC periodic iteration (core::IterationEstimate), every figure exact in binary: `period_s`, jitter
/// 1/256 s, confidence 0.875, parts {compute, memory, communication, latency, idle} as given (0-1, summing to
/// 1), the communication ratio and its exposed part, the offset 1/16 s, estimated at kT0 + 30 s over 30 s;
/// the strip holds each part's share of the kIterationStripBins bins in part order.
inline auto periodic_iteration(double period_s, std::array<double, core::kIterationPartCount> parts,
                               double communication_ratio, double exposed_ratio) -> core::IterationEstimate {
  core::IterationEstimate e;
  e.periodic = true;
  e.period_s = period_s;
  e.jitter_s = 0.00390625;
  e.confidence = 0.875;
  e.window_ns = 30'000'000'000;
  e.estimated_at_ns = 1'735'689'630'000'000'000;
  e.part_ratio = parts;
  e.compute_ratio = parts[0] + parts[1] + parts[3];  // compute, memory, latency
  e.communication_ratio = communication_ratio;
  e.exposed_communication_ratio = exposed_ratio;
  e.communication_offset_s = 0.0625;
  std::size_t bin = 0;
  for (std::size_t p = 0; p < core::kIterationPartCount; ++p) {
    const auto bins = static_cast<std::size_t>(parts[p] * static_cast<double>(core::kIterationStripBins));
    for (std::size_t i = 0; i < bins && bin < e.strip.size(); ++i)
      e.strip[bin++] = static_cast<core::IterationPart>(p);
  }
  return e;
}

/// Start of the synthetic clock: 2025-01-01T00:00:00Z in ns.
inline constexpr std::int64_t kT0 = 1'735'689'600'000'000'000;

/// `devices` devices with `seconds` seconds of 100 ms samples each (tensor pct = 10 x device + 40).
inline void fill(core::LiveState& state, std::uint32_t devices, int seconds) {
  std::vector<core::DeviceState> list;
  for (std::uint32_t d = 0; d < devices; ++d) list.push_back(synthetic_device(d));
  state.set_devices(std::move(list));
  for (int i = 0; i < seconds * 10; ++i) {
    for (std::uint32_t d = 0; d < devices; ++d) {
      state.add(synthetic_sample(d, kT0 + std::int64_t{i} * 100'000'000, 10.0 * d + 40.0));
    }
  }
}

/// A test fixture holding a state and a live server on 127.0.0.1:<ephemeral>.
class LiveServerTest : public ::testing::Test {
 protected:
  void SetUp() override { std::signal(SIGPIPE, SIG_IGN); }  // as install_stop_signals() does in the app
  void start(ServerOptions options = {}) {
    options.host = options.host.empty() ? "127.0.0.1" : options.host;
    options.port = 0;
    auto started = Server::start(std::move(options), state_);
    ASSERT_TRUE(started) << started.error().describe();
    server_ = std::move(*started);
  }
  core::LiveState state_;
  std::unique_ptr<Server> server_;
};

using solscope::testing::lines_starting;

}  // namespace solscope::server::testing
