#include "sources/dcgm/dcgm_exporter_source.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>
#include <utility>

namespace solscope::sources {
namespace {

constexpr std::string_view kDefaultPath = "/metrics";

auto realtime_now_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// "23:04:05" (UTC) of a realtime ns stamp, for "no answer since ...".
auto clock_text(std::int64_t ns) -> std::string {
  const std::time_t t = static_cast<std::time_t>(ns / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  const auto n = std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return std::string(buf, n) + " UTC";
}

/// "1 s", "2.5 s", "100 ms": an interval for messages.
auto seconds_text(std::int64_t ns) -> std::string {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + " s";
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + " ms";
  return std::to_string(ns) + " ns";
}

}  // namespace

auto DcgmExporterSource::open(const DcgmExporterOptions& options)
    -> core::Result<std::unique_ptr<DcgmExporterSource>> {
  auto parsed = net::parse_url(options.url);
  if (!parsed) return core::propagate(parsed);
  std::string path = parsed->prefix.empty() ? std::string(kDefaultPath) : parsed->prefix;
  std::string url = parsed->origin + path;
  auto source = std::unique_ptr<DcgmExporterSource>(new DcgmExporterSource(std::move(url), std::move(path)));
  net::RemoteEndpoint endpoint;
  endpoint.url = parsed->origin;
  endpoint.token = options.token;
  endpoint.ca_cert_path = options.ca_cert_path;
  endpoint.connect_timeout_s = options.connect_timeout_s;
  endpoint.read_timeout_s = options.read_timeout_s;
  endpoint.total_timeout_s = options.total_timeout_s;
  endpoint.max_body_bytes = 32u << 20;  // a scrape of 8 GPUs is ~100 KB; MIG and pods multiply it
  endpoint.stop = {options.stop, &source->cancel_};
  auto http = net::make_remote_http(endpoint);
  if (!http) return core::propagate(http);
  source->http_ = std::move(*http);
  source->min_interval_ns_ = options.min_interval_ns;
  return source;
}

DcgmExporterSource::DcgmExporterSource(std::string url, std::string path)
    : url_(std::move(url)), path_(std::move(path)) {}

DcgmExporterSource::~DcgmExporterSource() {
  stop();
}

auto DcgmExporterSource::base_reason() const -> std::string {
  return "DCGM via dcgm-exporter at " + url_ + ": tensor/FP pipes and DRAM only; L2/L1/issue unknown";
}

auto DcgmExporterSource::domain_news(const core::DomainTally& tally) -> std::string {
  const std::uint64_t n = tally.total();
  if (n == 0) return {};
  return std::to_string(n) + " value" + (n == 1 ? "" : "s") +
         " outside the metric's range made unknown since the start (" + tally.describe() + "); ";
}

auto DcgmExporterSource::scrape() -> core::Result<net::DcgmScrape> {
  auto response = http_->get(path_);
  if (!response) return core::propagate(response);
  if (response->status != 200) {
    return core::fail(core::ErrorCode::Unavailable,
                      url_ + " answered HTTP " + std::to_string(response->status),
                      "give the URL of dcgm-exporter's metrics page, e.g. http://127.0.0.1:9400/metrics");
  }
  auto parsed = net::parse_dcgm_scrape(response->body, index_);
  if (!parsed) {
    return core::fail(
        core::ErrorCode::FailedPrecondition, url_ + " is not a dcgm-exporter page: " + parsed.error().message,
        "give the URL of NVIDIA dcgm-exporter's metrics page (default port 9400, path /metrics)");
  }
  return parsed;
}

auto DcgmExporterSource::start(const SourceConfig& config) -> core::Result<void> {
  if (started_) return core::fail(core::ErrorCode::FailedPrecondition, "the dcgm-exporter source is started");
  if (config.interval_ns < min_interval_ns_) {
    return core::fail(core::ErrorCode::InvalidArgument,
                      "--interval " + seconds_text(config.interval_ns) + " is below " +
                          seconds_text(min_interval_ns_) + ", the fastest --dcgm-exporter scrapes",
                      "give --interval 1s or more (dcgm-exporter refreshes its figures every 30 s unless "
                      "started with a smaller -c)");
  }
  auto first = scrape();
  if (!first) return core::propagate(first);
  const std::set<std::uint32_t> wanted(config.devices.begin(), config.devices.end());
  std::set<std::uint32_t> seen;
  std::vector<core::DeviceInfo> devices;
  for (const auto& gpu : first->gpus) {
    seen.insert(gpu.device.index);
    if (wanted.empty() || wanted.contains(gpu.device.index)) devices.push_back(gpu.device);
  }
  for (const std::uint32_t d : wanted) {
    if (!seen.contains(d)) {
      return core::fail(
          core::ErrorCode::InvalidArgument,
          "--devices " + std::to_string(d) + ": " + url_ + " lists " + std::to_string(first->gpus.size()) +
              " GPU(s) and MIG slice(s), 0 to " + std::to_string(first->gpus.size() - 1),
          "give indices that dcgm-exporter lists (first-seen order of its gpu/GPU_I_ID labels)");
    }
  }
  const std::int64_t now = realtime_now_ns();
  {
    std::lock_guard lock(mutex_);
    interval_ns_ = config.interval_ns;
    devices_ = std::move(devices);
    for (const auto& d : devices_)
      status_[d.index] = DeviceStatus{core::SourceKind::Dcgm, base_reason(), "", false};
    take(*first, now);
    started_ = true;
    stopping_ = false;
  }
  thread_ = std::thread([this] {
    (void)core::guarded_run(
        "the dcgm-exporter scrape", [this] { run(); }, &fault_);
  });
  return {};
}

void DcgmExporterSource::take(const net::DcgmScrape& scrape, std::int64_t now_ns) {
  const bool was_down = down_since_ns_ != 0;
  down_since_ns_ = 0;
  std::set<std::uint32_t> present;
  for (const auto& gpu : scrape.gpus) {
    const auto st = status_.find(gpu.device.index);
    if (st == status_.end()) continue;  // not sampled (--devices), or new since the first scrape
    present.insert(gpu.device.index);
    core::RawSample s = gpu.sample;
    core::DomainTally& out_of_domain = out_of_domain_[gpu.device.index];
    core::check_domain(s, out_of_domain);  // -Inf, a negative ratio: unknown, counted, never 0
    s.t_end_ns = now_ns;
    const auto last = last_end_ns_.find(gpu.device.index);
    // Back to back with the previous scrape; after an outage (exporter down, GPU gone) the sample covers one
    // interval and says that samples are missing before it, rather than spreading its values over the gap.
    const bool gap = last != last_end_ns_.end() && (was_down || st->second.lost);
    s.t_start_ns = last != last_end_ns_.end() && !gap ? last->second : now_ns - interval_ns_;
    if (gap) s.flags |= core::kSampleGapBefore;
    last_end_ns_[gpu.device.index] = now_ns;
    st->second = DeviceStatus{core::SourceKind::Dcgm, domain_news(out_of_domain) + base_reason(), "", false};
    pending_.push_back(s);
  }
  for (auto& [index, st] : status_) {
    if (present.contains(index)) continue;
    st.lost = true;
    // The news first: a view cuts long notes at the end.
    st.reason = "device " + std::to_string(index) + " missing from the scrape of " + clock_text(now_ns) +
                "; " + base_reason();
    st.hint =
        "check the GPU on its node (dcgm-exporter stops listing a GPU that fell off the bus or was "
        "re-partitioned)";
  }
}

void DcgmExporterSource::mark_down(const core::Error& error, std::int64_t now_ns) {
  if (down_since_ns_ == 0) down_since_ns_ = now_ns;
  for (auto& [index, st] : status_) {
    st.reason = "no scrape since " + clock_text(down_since_ns_) + " (" + error.message +
                "), retrying every " + seconds_text(interval_ns_) + "; " + base_reason();
    st.hint = error.hint;
  }
}

void DcgmExporterSource::run() {
  std::unique_lock lock(mutex_);
  auto next = std::chrono::steady_clock::now();
  while (!stopping_) {
    next += std::chrono::nanoseconds(interval_ns_);
    // A scrape slower than the interval starts the next one at once instead of queueing them up.
    next = std::max(next, std::chrono::steady_clock::now());
    wake_.wait_until(lock, next, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    auto scraped = scrape();  // bounded by the client's timeouts; cancelled by stop()
    const std::int64_t now = realtime_now_ns();
    lock.lock();
    if (scraped) {
      take(*scraped, now);
    } else {
      mark_down(scraped.error(), now);
    }
  }
}

auto DcgmExporterSource::poll() -> core::Result<std::vector<core::RawSample>> {
  // Read first: once the thread has failed, it added nothing after, so the swap below takes its last samples.
  const bool faulted = fault_.failed();
  std::vector<core::RawSample> out;
  {
    std::lock_guard lock(mutex_);
    out.swap(pending_);
  }
  // The samples scraped before a fault still count; the poll after them says why no more will come.
  if (out.empty() && faulted) {
    return core::fail(core::ErrorCode::Internal, fault_.text(),
                      "this is a bug in solscope: please report it with the command line");
  }
  return out;
}

void DcgmExporterSource::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cancel_ = true;  // a scrape in flight ends within net::kStopPollS
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

auto DcgmExporterSource::devices() const -> std::vector<core::DeviceInfo> {
  std::lock_guard lock(mutex_);
  return devices_;
}

auto DcgmExporterSource::status(std::uint32_t device) const -> DeviceStatus {
  std::lock_guard lock(mutex_);
  const auto it = status_.find(device);
  return it != status_.end() ? it->second : DeviceStatus{};
}

}  // namespace solscope::sources
