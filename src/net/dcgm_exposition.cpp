#include "net/dcgm_exposition.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <utility>

#include "core/dcgm_fields.hpp"
#include "core/mig_profile.hpp"
#include "net/prometheus_text.hpp"

namespace solscope::net {
namespace {

// Free framebuffer (DCGM field 252's sibling 251, MiB): dcgm-exporter's default set exports used and free but
// not total, so total = used + free when DCGM_FI_DEV_FB_TOTAL is absent.
constexpr std::string_view kFbFree = "DCGM_FI_DEV_FB_FREE";
constexpr double kMib = 1024.0 * 1024.0;

auto label_or_empty(const PromSample& s, std::string_view key) -> std::string {
  const std::string* v = s.label(key);
  return v != nullptr ? *v : std::string{};
}

/// dcgm-exporter names the machine `Hostname` (up to 4.x) or `hostname` (later releases).
auto host_of(const PromSample& s) -> std::string {
  const std::string* v = s.label("Hostname");
  return v != nullptr ? *v : label_or_empty(s, "hostname");
}

auto key_of(const PromSample& s) -> DcgmGpuKey {
  return {host_of(s), label_or_empty(s, "gpu"), label_or_empty(s, "GPU_I_ID")};
}

auto parse_int(const std::string& text, std::int64_t fallback) -> std::int64_t {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc{} && end == text.data() + text.size() ? v : fallback;
}

/// "namespace/pod/container" when any of the three labels is non-empty, else "".
auto attribution_of(const PromSample& s) -> std::string {
  const std::string ns = label_or_empty(s, "namespace");
  const std::string pod = label_or_empty(s, "pod");
  const std::string container = label_or_empty(s, "container");
  if (ns.empty() && pod.empty() && container.empty()) return {};
  return ns + "/" + pod + "/" + container;
}

/// The device facts carried by a sample's labels.
auto device_from_labels(const PromSample& s, std::uint32_t index) -> core::DeviceInfo {
  core::DeviceInfo d = dcgm_device_identity({.host = host_of(s),
                                             .gpu = label_or_empty(s, "gpu"),
                                             .uuid = label_or_empty(s, "UUID"),
                                             .model = label_or_empty(s, "modelName"),
                                             .pci_bus_id = label_or_empty(s, "pci_bus_id"),
                                             .mig_profile = label_or_empty(s, "GPU_I_PROFILE"),
                                             .mig_id = label_or_empty(s, "GPU_I_ID")},
                                            index);
  d.attribution = attribution_of(s);
  return d;
}

auto new_gpu_sample(const PromSample& s, std::uint32_t index) -> DcgmGpuSample {
  DcgmGpuSample g;
  g.device = device_from_labels(s, index);
  g.sample.device_index = index;
  g.sample.source = core::SourceKind::Dcgm;
  return g;
}

/// Fills the figures derived from others once every line of a scrape is in: total memory from used + free.
void finish_gpu(DcgmGpuSample& g, double fb_free_bytes) {
  core::RawSample& r = g.sample;
  const double used = r.value(core::MetricId::MemoryUsedBytes);
  if (std::isnan(r.value(core::MetricId::MemoryTotalBytes)) && !std::isnan(used) &&
      !std::isnan(fb_free_bytes)) {
    r.set(core::MetricId::MemoryTotalBytes, used + fb_free_bytes);
  }
  const double total = r.value(core::MetricId::MemoryTotalBytes);
  // Below 2^64 (0x1p64): a larger value (a damaged scrape) has no uint64 and stays unknown (0).
  if (std::isfinite(total) && total >= 0 && total < 0x1p64) {
    g.device.memory_total_bytes = static_cast<std::uint64_t>(total);
  }
}

/// One scrape from the DCGM_FI_* samples of one time (all of `samples` are DCGM_FI_* lines).
auto build_scrape(std::span<const PromSample* const> samples, DcgmDeviceIndex& index) -> DcgmScrape {
  DcgmScrape scrape;
  std::map<std::uint32_t, DcgmGpuSample> gpus;
  std::map<std::uint32_t, double> fb_free;
  for (const PromSample* s : samples) {
    const std::uint32_t i = index.index_of(key_of(*s));
    auto it = gpus.find(i);
    if (it == gpus.end()) it = gpus.emplace(i, new_gpu_sample(*s, i)).first;
    if (s->timestamp_ms != kNoTimestamp) {
      scrape.timestamp_ms = std::max(scrape.timestamp_ms, s->timestamp_ms);
    }
    if (s->name == kFbFree) {
      fb_free[i] = core::is_dcgm_placeholder(s->value) ? core::kUnknown : s->value * kMib;
      ++scrape.lines_used;
      continue;
    }
    const auto field = core::dcgm_field_by_name(s->name);
    if (!field) {
      ++scrape.unknown_names[s->name];
      continue;
    }
    ++scrape.lines_used;
    // A field seen twice for one GPU (e.g. one line per pod sharing it) keeps its first value; a different
    // second value is counted, so that the import says what it left out.
    const double kept = it->second.sample.value(field->metric);
    const double value = core::dcgm_value(*field, s->value);
    if (std::isnan(kept)) {
      it->second.sample.set(field->metric, value);
    } else if (!std::isnan(value) && value != kept) {
      ++scrape.repeated_values;
    }
  }
  scrape.gpus.reserve(gpus.size());
  for (auto& [i, g] : gpus) {
    const auto free_it = fb_free.find(i);
    finish_gpu(g, free_it != fb_free.end() ? free_it->second : core::kUnknown);
    if (scrape.timestamp_ms != kNoTimestamp) {
      g.sample.t_end_ns = scrape.timestamp_ms * 1'000'000;
      g.sample.t_start_ns = 0;
    }
    scrape.gpus.push_back(std::move(g));
  }
  return scrape;
}

auto is_dcgm_series(const PromSample& s) -> bool {
  return s.name.starts_with(core::kDcgmSeriesPrefix);
}

/// The exposition text's samples, or DataLoss naming the first line that is not exposition text.
auto parse_text(std::string_view text) -> core::Result<PromText> {
  PromText parsed = parse_prometheus_text(text);
  if (parsed.bad_lines > 0) {
    return core::fail(core::ErrorCode::DataLoss,
                      "line " + std::to_string(parsed.first_bad_line) +
                          ": not Prometheus text exposition (expected `NAME{LABELS} VALUE [TIMESTAMP]`)",
                      "give a dcgm-exporter /metrics page as it was scraped");
  }
  return parsed;
}

/// DataLoss for a sample line whose timestamp is not a time between 1970 and 2200 (kMaxTimestampMs): beyond
/// 2262 its ns no longer fit an int64.
auto check_timestamp(const PromSample& s) -> core::Result<void> {
  if (s.timestamp_ms == kNoTimestamp || (s.timestamp_ms >= 0 && s.timestamp_ms <= kMaxTimestampMs)) {
    return {};
  }
  return core::fail(core::ErrorCode::DataLoss,
                    "line " + std::to_string(s.line) + ": timestamp " + std::to_string(s.timestamp_ms) +
                        " ms is not a time between 1970 and 2200",
                    "sample lines carry Unix milliseconds, e.g. 1735689600000");
}

auto no_dcgm_series() -> core::Unexpected<core::Error> {
  return core::fail(core::ErrorCode::InvalidArgument, "no DCGM_FI_* series: not a dcgm-exporter scrape",
                    "give the /metrics page of NVIDIA dcgm-exporter (default port 9400)");
}

/// A label's small non-negative integer (an index, an instance id below 2^31), or -1.
auto label_index(const std::string& text) -> std::int32_t {
  constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();
  const std::int64_t v = parse_int(text, -1);
  return v >= 0 && v <= kMaxIndex ? static_cast<std::int32_t>(v) : -1;
}

}  // namespace

auto dcgm_device_identity(const DcgmDeviceLabels& labels, std::uint32_t index) -> core::DeviceInfo {
  core::DeviceInfo d;
  d.index = index;
  d.name = labels.model;
  d.pci_bus_id = labels.pci_bus_id;
  d.host = labels.host;
  d.gpu_index = label_index(labels.gpu);
  d.mig_profile = labels.mig_profile;
  if (!labels.mig_id.empty()) d.mig_instance_id = label_index(labels.mig_id);
  if (!d.is_mig()) {
    d.uuid = labels.uuid;
    return d;
  }
  constexpr std::string_view kMigUuidPrefix = "MIG-";
  (labels.uuid.starts_with(kMigUuidPrefix) ? d.uuid : d.parent_uuid) = labels.uuid;
  const core::MigShares shares = core::mig_shares_from_profile(d.mig_profile, d.name);
  d.mig_sm_share = shares.sm_share;
  d.mig_memory_share = shares.memory_share;
  return d;
}

auto DcgmDeviceIndex::index_of(const DcgmGpuKey& key) -> std::uint32_t {
  const auto [it, inserted] = indices_.emplace(key, static_cast<std::uint32_t>(indices_.size()));
  return it->second;
}

auto parse_dcgm_scrape(std::string_view text, DcgmDeviceIndex& index) -> core::Result<DcgmScrape> {
  auto parsed = parse_text(text);
  if (!parsed) return core::propagate(parsed);
  std::vector<const PromSample*> dcgm;
  for (const PromSample& s : parsed->samples) {
    if (!is_dcgm_series(s)) continue;
    if (auto ok = check_timestamp(s); !ok) return core::propagate(ok);
    dcgm.push_back(&s);
  }
  if (dcgm.empty()) return no_dcgm_series();
  return build_scrape(dcgm, index);
}

auto parse_dcgm_scrapes(std::string_view text, DcgmDeviceIndex& index)
    -> core::Result<std::vector<DcgmScrape>> {
  auto parsed = parse_text(text);
  if (!parsed) return core::propagate(parsed);
  std::map<std::int64_t, std::vector<const PromSample*>> by_time;
  const PromSample* first = nullptr;
  for (const PromSample& s : parsed->samples) {
    if (!is_dcgm_series(s)) continue;
    if (auto ok = check_timestamp(s); !ok) return core::propagate(ok);
    if (first == nullptr) first = &s;
    const bool stamped = s.timestamp_ms != kNoTimestamp;
    if (stamped != (first->timestamp_ms != kNoTimestamp)) {
      return core::fail(
          core::ErrorCode::DataLoss,
          "line " + std::to_string(s.line) + ": " + (stamped ? "has" : "has no") +
              " timestamp, unlike line " + std::to_string(first->line),
          "either every sample line carries a timestamp (many scrapes) or none does (one scrape)");
    }
    by_time[s.timestamp_ms].push_back(&s);
  }
  if (first == nullptr) return no_dcgm_series();
  std::vector<DcgmScrape> scrapes;
  scrapes.reserve(by_time.size());
  for (const auto& [t, lines] : by_time) scrapes.push_back(build_scrape(lines, index));
  return scrapes;
}

}  // namespace solscope::net
