// AttainableSol: the attainable Compute and Memory SOL of the workload on each sampled GPU, kept fresh by a
// background thread and copied into every RawSample (and so every SolSample and trace) by the engine's
// annotator.
//
// Every `refresh_interval_s` the thread lists each GPU's compute processes (an injected function; NVML in the
// app), runs workload discovery (src/workload: procfs, loopback HTTP only) and, for each GPU whose workload
// has a config.json and a step shape, evaluates the roofline ceiling (src/ceiling) for that GPU model at the
// device's latest measured SM clock, the workload's tensor parallelism and the checkpoint's dtype. The result
// is published as one immutable snapshot; annotate() reads it under a short lock. The thread never runs on
// the sampling path: an HTTP probe may take seconds (net/http_client.hpp timeouts).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "ceiling/ceiling.hpp"
#include "ceiling/serving.hpp"
#include "core/device_info.hpp"
#include "core/result.hpp"
#include "core/sol_sample.hpp"
#include "workload/discovery.hpp"

namespace solscope::app {

/// Lists the PIDs with a compute context on one GPU (NVML index). Called from the refresh thread only.
using PidLister = std::function<core::Result<std::vector<std::int32_t>>(std::uint32_t device)>;

/// What AttainableSol takes from its surroundings; tests inject fakes.
struct AttainableSolDeps {
  PidLister pids;                         ///< required
  std::unique_ptr<net::HttpClient> http;  ///< null: net::make_loopback_http_client()
  workload::DiscoveryOptions discovery;   ///< procfs root, HF hub dirs, user names, re-probe interval
  std::vector<workload::WorkloadDeclaration> declared;  ///< `[[workload]]` entries; they win over discovery
  std::function<double()> now_s;  ///< monotonic clock in seconds for the live-shape rates; null: steady_clock
  double refresh_interval_s = 5.0;  ///< time between refresh passes, clamped to 0.1-3600 s
  std::string gpu_specs_json;       ///< GPU spec file text; empty: the built-in data/gpu_specs.json
};

/// The attainable figures of one GPU at one refresh. Percentages 0-100 of the GPU's peak at the evaluation
/// clock; NaN when no ceiling could be computed (no workload, no config.json, idle engine, unknown GPU
/// model).
struct AttainableFigures {
  std::uint32_t device_index = 0;
  /// The ceiling's tensor-pipe activity (ceiling::Ceiling::tensor_activity_pct, padding included), the figure
  /// a live Compute SOL is compared with (docs/design/ceiling-model.md 2.7).
  double compute_sol_pct = std::numeric_limits<double>::quiet_NaN();
  double useful_compute_sol_pct = std::numeric_limits<double>::quiet_NaN();  ///< MFU at the ceiling's speed
  double memory_sol_pct = std::numeric_limits<double>::quiet_NaN();
  /// The resource that limits the ceiling (ceiling::Ceiling::limiter, ServeCeiling::limiter); kCount when
  /// there is no ceiling. Copied into every sample beside the figures (RawSample::attainable_limiter).
  ceiling::Limiter limiter = ceiling::Limiter::kCount;
  /// One line: the workload found and its ceiling ("found vLLM serving X on :8000; decode batch 12 context
  /// 1333, TP 2 on H100-SXM5-80GB at 1755 MHz: attainable compute 4.1%, memory 71.3%, limited by memory"),
  /// or why there is none.
  std::string description;
  /// The ceiling part of `description` alone ("decode batch 12 ..., limited by memory" or "no ceiling: why");
  /// empty when discovery found no workload (its status says why).
  std::string ceiling_note;
  /// The engine's own FLOP estimate per GPU (vLLM/SGLang `*:estimated_flops_per_gpu_total`, a rate over the
  /// refresh window) as a percentage of the same peak: the engine's MFU, beside useful_compute_sol_pct. NaN
  /// when the engine does not export it (vLLM needs --enable-mfu-metrics).
  double engine_mfu_pct = std::numeric_limits<double>::quiet_NaN();
};

/// One refresh pass, published whole (immutable once published).
struct AttainableSnapshot {
  std::uint64_t pass = 0;                     ///< refresh passes completed (1 for the first)
  std::vector<AttainableFigures> devices;     ///< one per device, in the constructor's order
  std::vector<workload::Workload> workloads;  ///< discovery's result, same order
};

/// The evaluation of one GPU's workload (a pure step, exposed for tests): the ceiling of `w.shape` for `arch`
/// on `gpu` at `sm_clock_mhz` (NaN or outside 1-10,000 MHz: the spec's tensor clock) with the engine's
/// layout: TP = `w.tensor_parallel` (0: the number of GPUs of the workload, at least 1), EP, attention DP and
/// PP as discovery read them (workload/engine_layout.hpp), and the dtypes of the checkpoint. A layout `arch`
/// cannot take is modelled as TP `w.fallback_tensor_parallel` alone, with a note saying why; so is an
/// approximated engine setting (`w.layout_note`). The note is appended to the ceiling's notes and, when
/// `layout_note` is not null, stored there (empty when none). Errors: FailedPrecondition when `w` has no
/// shape; ceiling::evaluate's errors.
[[nodiscard]] auto evaluate_workload(const ceiling::GpuDatabase& db, const ceiling::GpuSpec& gpu,
                                     const ceiling::ModelArch& arch, const workload::Workload& w,
                                     double sm_clock_mhz, std::string* layout_note = nullptr)
    -> core::Result<ceiling::Ceiling>;

/// The serving ceiling of a live workload (docs/design/ceiling-model.md 6.5): `w.serve`'s isl, osl and
/// concurrency with the token budget of `w.max_batched_tokens` (0: vLLM serve's default for the GPU), layout
/// and clock as evaluate_workload() takes them. Errors: FailedPrecondition when `w` has no serving traffic;
/// ceiling::evaluate_serving's errors.
[[nodiscard]] auto evaluate_workload_serving(const ceiling::GpuDatabase& db, const ceiling::GpuSpec& gpu,
                                             const ceiling::ModelArch& arch, const workload::Workload& w,
                                             double sm_clock_mhz, std::string* layout_note = nullptr)
    -> core::Result<ceiling::ServeCeiling>;

/// See the file comment. Thread-safety: annotate(), snapshot() and description_of() may be called from any
/// thread at any time; start(), stop() and refresh_now() from one controlling thread; refresh_now() only
/// while the thread is not started (tests drive passes by hand with it).
class AttainableSol {
 public:
  /// `devices` are the GPUs being sampled (index and NVML name are used). Errors of the GPU spec text are
  /// kept and reported in every device's description (the figures stay NaN).
  AttainableSol(std::vector<core::DeviceInfo> devices, AttainableSolDeps deps);
  /// Stops and joins the thread.
  ~AttainableSol();
  AttainableSol(const AttainableSol&) = delete;
  auto operator=(const AttainableSol&) -> AttainableSol& = delete;

  /// Starts the refresh thread; its first pass begins at once. No-op when already started.
  void start();
  /// Asks the thread to stop and joins it: immediate while it waits between passes, otherwise after the pass
  /// in progress (bounded by the HTTP client's timeouts). Idempotent.
  void stop();
  /// Runs one refresh pass on the calling thread and publishes it. Only while the thread is not started.
  void refresh_now();

  /// Copies the latest attainable figures and their limiter of `sample.device_index` into the sample (NaN
  /// and kCount when unknown or before the first pass) and remembers the sample's SM clock for the next pass.
  /// No allocation; one short lock. Samples of devices not given to the constructor are left as they are.
  void annotate(core::RawSample& sample);
  /// A function for Engine::set_annotator that calls annotate(); `this` must outlive the engine run.
  [[nodiscard]] auto annotator() -> std::function<void(core::RawSample&)>;

  /// The latest snapshot; an empty one (pass 0) before the first pass.
  [[nodiscard]] auto snapshot() const -> std::shared_ptr<const AttainableSnapshot>;
  /// The latest description of one device; empty before the first pass or for an unknown device.
  [[nodiscard]] auto description_of(std::uint32_t device_index) const -> std::string;

 private:
  void run_thread();
  [[nodiscard]] auto figures_for(std::size_t slot, const workload::Workload& w) -> AttainableFigures;
  void serving_figures(const ceiling::GpuSpec& gpu, const ceiling::ModelArch& arch,
                       const workload::Workload& w, double clock_mhz, AttainableFigures& f);
  [[nodiscard]] auto model_arch(const std::string& config_path) -> const core::Result<ceiling::ModelArch>&;
  [[nodiscard]] auto slot_of(std::uint32_t device_index) const -> std::optional<std::size_t>;

  std::vector<core::DeviceInfo> devices_;
  AttainableSolDeps deps_;
  core::Result<ceiling::GpuDatabase> db_;
  std::unique_ptr<workload::WorkloadDiscovery> discovery_;
  std::map<std::string, core::Result<ceiling::ModelArch>> arch_cache_;  ///< by config path (refresh thread)
  std::unique_ptr<std::atomic<double>[]> sm_clock_mhz_;                 ///< per slot, latest sample's clock

  mutable std::mutex mutex_;  ///< guards snapshot_ and stop_requested_
  std::shared_ptr<const AttainableSnapshot> snapshot_;
  bool stop_requested_ = false;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace solscope::app
