// SYNTHETIC trace data for tests and benchmarks: deterministic, plausible-looking samples that were never
// measured on a GPU. Every trace written here says so in meta.synthetic and meta.source_description.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/device_info.hpp"
#include "core/kernel_record.hpp"
#include "core/raw_sample.hpp"
#include "core/result.hpp"
#include "trace/writer.hpp"

namespace solscope::synthetic {

/// Start of every synthetic trace: 2023-11-14T22:13:20Z in ns since the Unix epoch.
inline constexpr std::int64_t kStartNs = 1'700'000'000'000'000'000;
/// Interval of every synthetic sample (10 ms, the interval docs/design/architecture.md section 4 targets).
inline constexpr std::int64_t kIntervalNs = 10'000'000;

/// `count` synthetic devices with indices 0..count-1. Names say "synthetic"; the numbers follow H100 SXM data
/// sheet magnitudes (132 SMs, 80 GiB, 3.35e12 B/s) only so that derived figures look plausible.
[[nodiscard]] auto devices(std::uint32_t count) -> std::vector<core::DeviceInfo>;

/// Sample `n` (0-based) of `device`: [kStartNs + n x kIntervalNs, + kIntervalNs), source PmSampling, values a
/// pure function of (device, n, seed). FP64 pipe and NVLink are NaN on odd devices and every 7th sample has
/// NaN clocks, so that unknown values are exercised.
[[nodiscard]] auto sample(std::uint32_t device, std::uint64_t n, std::uint64_t seed) -> core::RawSample;

/// Samples 0..per_device-1 of devices 0..device_count-1, interleaved in time order (sample n of every device,
/// then sample n + 1).
[[nodiscard]] auto samples(std::uint32_t device_count, std::uint64_t per_device, std::uint64_t seed)
    -> std::vector<core::RawSample>;

/// Writes a trace of `devs` (`options.synthetic` set here) with `per_device` rounds of one sample per device
/// in device order, `sample_at(device index in devs, n)`, each with its core::derive figures, and closes it.
/// The one writer loop of every synthetic profile. With `kernels` (not null) the trace also gets that
/// kernel table, marked meta kernel_log = "synthetic", and with `markers` (not null) that markers table.
/// Returns the number of samples; errors: the trace writer's.
[[nodiscard]] auto write_samples(
    const std::filesystem::path& path, trace::WriterOptions options,
    const std::vector<core::DeviceInfo>& devs, std::uint64_t per_device,
    const std::function<core::RawSample(std::uint32_t, std::uint64_t)>& sample_at,
    const std::vector<core::KernelRecord>* kernels = nullptr,
    const std::vector<core::MarkerRecord>* markers = nullptr) -> core::Result<std::uint64_t>;

/// Writes a complete synthetic trace (devices, samples(device_count, per_device, seed) with core::derive
/// figures, meta.synthetic = 1) and closes it. `options.synthetic` and `source_description` are set here.
/// Returns the number of samples written.
[[nodiscard]] auto write_trace(const std::filesystem::path& path, std::uint32_t device_count,
                               std::uint64_t per_device, std::uint64_t seed,
                               trace::WriterOptions options = {}) -> core::Result<std::uint64_t>;

}  // namespace solscope::synthetic
