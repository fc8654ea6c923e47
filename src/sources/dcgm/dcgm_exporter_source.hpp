// DcgmExporterSource: a CounterSource that scrapes NVIDIA dcgm-exporter's /metrics page every interval, for
// nodes where DCGM profiling owns the GPU counters (one profiler per GPU, so solscope's own sampler cannot
// start there). Samples carry SourceKind::Dcgm and the DCGM definition of SOL (docs/design/sol-metrics.md
// section 8): Compute SOL = the busiest of tensor / FP64 / FP32 / FP16 pipe active, Memory SOL = DRAM
// active; L2, L1 and issue are unknown.
//
// The device list is the first scrape's GPUs and MIG slices (start() fails when the URL does not answer or is
// not a dcgm-exporter page). A background thread scrapes every interval with bounded HTTP timeouts (connect,
// per read, and the whole scrape: an exporter that trickles cannot hold one longer); poll() only takes what
// it found, so a slow or dead exporter never blocks the caller, and stop() cancels a scrape in flight within
// net::kStopPollS. A GPU missing from a later
// scrape is reported lost (until it comes back); while the exporter does not answer, samples stop, every
// device's status says so, and the thread keeps retrying every interval. The thread runs under
// core::guarded_run: an exception ends it (booked in core::thread_faults()), and poll() fails with it once
// the samples scraped before it are taken. Every value goes through the catalog's domain check
// (core::check_domain): one outside its metric's range (-Inf, a negative ratio) is unknown, never 0, and the
// device's status counts them.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/guarded_run.hpp"
#include "core/metric_domain.hpp"
#include "core/result.hpp"
#include "net/dcgm_exposition.hpp"
#include "net/remote_http.hpp"
#include "sources/counter_source.hpp"

namespace solscope::sources {

/// The shortest interval this source scrapes at: dcgm-exporter itself refreshes its figures every
/// `-c` ms (30 s by default), so faster scrapes would only repeat them.
inline constexpr std::int64_t kDcgmMinIntervalNs = 1'000'000'000;

/// Where dcgm-exporter is and how to reach it.
struct DcgmExporterOptions {
  /// "http://HOST:PORT/metrics"; without a path "/metrics" is scraped; https:// for TLS.
  std::string url;
  std::string token;               ///< bearer token; empty = none
  std::string ca_cert_path;        ///< https: PEM of the CA to trust; empty = the system's
  double connect_timeout_s = 1.0;  ///< per scrape, 0.001-60 s
  double read_timeout_s = 2.0;     ///< per read, 0.001-600 s (a scrape never blocks poll())
  double total_timeout_s = 3.0;    ///< the whole scrape, 0.001-3600 s
  /// The caller's stop flag (a stop signal's); set, it cancels a scrape in flight, the first one in start()
  /// included, within net::kStopPollS. Null = none; must outlive the source.
  const std::atomic<bool>* stop = nullptr;
  /// The shortest interval start() accepts: kDcgmMinIntervalNs (tests lower it to run quickly).
  std::int64_t min_interval_ns = kDcgmMinIntervalNs;
};

class DcgmExporterSource final : public CounterSource {
 public:
  /// A source for `options` (nothing is contacted yet). Errors: InvalidArgument for a bad URL or timeouts,
  /// NotFound for an unreadable CA file, Unimplemented for https in a build without TLS.
  [[nodiscard]] static auto open(const DcgmExporterOptions& options)
      -> core::Result<std::unique_ptr<DcgmExporterSource>>;

  ~DcgmExporterSource() override;
  DcgmExporterSource(const DcgmExporterSource&) = delete;
  auto operator=(const DcgmExporterSource&) -> DcgmExporterSource& = delete;

  [[nodiscard]] auto devices() const -> std::vector<core::DeviceInfo> override;
  /// Scrapes once and starts the scraping thread. Errors: InvalidArgument for an interval below
  /// DcgmExporterOptions::min_interval_ns (1 s) or a
  /// --devices index the first scrape lacks; Unavailable when the URL does not answer or answers an HTTP
  /// error; FailedPrecondition when the page is not dcgm-exporter's (no DCGM_FI_* series, or not exposition
  /// text); FailedPrecondition when started twice.
  [[nodiscard]] auto start(const SourceConfig& config) -> core::Result<void> override;
  /// The samples of the scrapes since the last call (one per device and scrape). Never blocks on HTTP.
  /// Errors: Internal "the dcgm-exporter scrape stopped: <what>" once the scraping thread ended on an
  /// exception (a bug; no later sample would come) and every sample before it was taken.
  [[nodiscard]] auto poll() -> core::Result<std::vector<core::RawSample>> override;
  void stop() override;
  [[nodiscard]] auto status(std::uint32_t device) const -> DeviceStatus override;

  /// "http://HOST:PORT/metrics", for messages.
  [[nodiscard]] auto url() const -> const std::string& { return url_; }

 private:
  DcgmExporterSource(std::string url, std::string path);

  /// One GET and parse. Errors as start() describes.
  [[nodiscard]] auto scrape() -> core::Result<net::DcgmScrape>;
  /// Turns a scrape into samples at `now_ns` and updates the lost marks. Caller holds mutex_.
  void take(const net::DcgmScrape& scrape, std::int64_t now_ns);
  /// Marks every device's status with why the last scrape failed. Caller holds mutex_.
  void mark_down(const core::Error& error, std::int64_t now_ns);
  void run();
  [[nodiscard]] auto base_reason() const -> std::string;
  /// "N values outside the metric's range made unknown since the start (tensor_pipe_pct N); " or "".
  [[nodiscard]] static auto domain_news(const core::DomainTally& tally) -> std::string;

  std::string url_;   ///< for messages
  std::string path_;  ///< what is scraped: the URL's path, or "/metrics"
  std::unique_ptr<net::RemoteHttp> http_;
  std::atomic<bool> cancel_{false};  ///< set by stop(): the scrape in flight ends at once (http_'s stop flag)
  net::DcgmDeviceIndex index_;       ///< only the scraping thread (or start()) touches it

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<core::DeviceInfo> devices_;
  std::map<std::uint32_t, DeviceStatus> status_;
  std::map<std::uint32_t, std::int64_t> last_end_ns_;
  /// Per device: values outside their metric's range (core::check_domain), made unknown, since start().
  std::map<std::uint32_t, core::DomainTally> out_of_domain_;
  std::vector<core::RawSample> pending_;
  std::int64_t interval_ns_ = kDcgmMinIntervalNs;
  std::int64_t min_interval_ns_ = kDcgmMinIntervalNs;
  std::int64_t down_since_ns_ = 0;  ///< 0 while the exporter answers
  bool stopping_ = false;
  bool started_ = false;
  core::ThreadFault fault_;  ///< why the scraping thread ended early, if it did
  std::thread thread_;
};

}  // namespace solscope::sources
