#include "attainable/attainable_sol.hpp"

#include "attainable/model_config_file.hpp"
#include "ceiling/ceiling_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <utility>

#include "ceiling/default_gpu_specs.hpp"
#include "ceiling/mig_spec.hpp"
#include "ceiling/parallel.hpp"
#include "core/device_info.hpp"
#include "core/guarded_run.hpp"
#include "core/units.hpp"

namespace solscope::app {
namespace {

using core::ErrorCode;

constexpr double kMinRefreshS = 0.1;
constexpr double kMaxRefreshS = 3600.0;

auto steady_seconds() -> double {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

auto shape_text(const workload::WorkloadShape& s) -> std::string {
  std::string text = fmt::format("{} batch {} context {}", core::to_string(s.phase), s.batch, s.context);
  if (s.phase != workload::Phase::Decode) text += fmt::format(" prompt {}", s.prompt);
  return text;
}

/// The parallel layout and clock of a live workload, shared by the single-step and serving ceilings: the
/// engine's layout (TP, else the GPUs it spans; EP, attention DP, PP as discovery read them) and the measured
/// SM clock when it is in range. A layout the model cannot take (EP on a dense model, an expert count EP does
/// not divide, more stages than layers) is modelled as TP alone, and `note` says why.
auto layout_and_clock(const ceiling::ModelArch& arch, const workload::Workload& w, double sm_clock_mhz,
                      std::string& note) -> ceiling::Workload {
  ceiling::Workload cw;
  const int gpus = std::max(1, static_cast<int>(w.gpus.size()));
  cw.tensor_parallel = w.tensor_parallel > 0 ? w.tensor_parallel : gpus;
  cw.expert_parallel = std::max(w.expert_parallel, 1);
  cw.dp_attention = w.attention_dp > 1;
  cw.pipeline_parallel = std::max(w.pipeline_parallel, 1);
  if (const auto layout = ceiling::parallel_layout(arch, cw); !layout) {
    const int tp = w.fallback_tensor_parallel > 0 ? w.fallback_tensor_parallel : cw.tensor_parallel;
    note = fmt::format(
        "the engine's layout (tp {}, ep {}, attention dp {}, pp {}) does not fit this model ({}): "
        "modelled as TP {}",
        cw.tensor_parallel, cw.expert_parallel, std::max(w.attention_dp, 1), cw.pipeline_parallel,
        layout.error().message, tp);
    cw = ceiling::Workload{};
    cw.tensor_parallel = tp;
  } else if (!w.layout_note.empty()) {
    note = w.layout_note;
  }
  if (std::isfinite(sm_clock_mhz) && sm_clock_mhz >= ceiling::kMinSmClockMhz &&
      sm_clock_mhz <= ceiling::kMaxSmClockMhz) {
    cw.sm_clock_mhz = sm_clock_mhz;
  }
  return cw;
}

}  // namespace

auto evaluate_workload(const ceiling::GpuDatabase& db, const ceiling::GpuSpec& gpu,
                       const ceiling::ModelArch& arch, const workload::Workload& w, double sm_clock_mhz,
                       std::string* layout_note) -> core::Result<ceiling::Ceiling> {
  if (!w.shape) {
    return core::fail(ErrorCode::FailedPrecondition,
                      "no step shape for the workload on GPU " + std::to_string(w.gpu_index));
  }
  auto step = ceiling::make_step(w.shape->phase, w.shape->batch, w.shape->context, w.shape->prompt);
  if (!step) return core::propagate(std::move(step));
  std::string note;
  ceiling::Workload cw = layout_and_clock(arch, w, sm_clock_mhz, note);
  cw.step = std::move(*step);
  auto c = ceiling::evaluate(db, gpu, arch, cw);
  if (c && !note.empty()) c->notes.push_back(note);
  if (layout_note != nullptr) *layout_note = std::move(note);
  return c;
}

auto evaluate_workload_serving(const ceiling::GpuDatabase& db, const ceiling::GpuSpec& gpu,
                               const ceiling::ModelArch& arch, const workload::Workload& w,
                               double sm_clock_mhz, std::string* layout_note)
    -> core::Result<ceiling::ServeCeiling> {
  if (!w.serve) {
    return core::fail(ErrorCode::FailedPrecondition,
                      "no serving traffic for the workload on GPU " + std::to_string(w.gpu_index));
  }
  std::string note;
  const ceiling::Workload base = layout_and_clock(arch, w, sm_clock_mhz, note);
  const ceiling::ServeTraffic traffic{w.serve->input_tokens, w.serve->output_tokens, w.serve->concurrency,
                                      w.max_batched_tokens};
  auto s = ceiling::evaluate_serving(db, gpu, arch, base, traffic);
  if (s && !note.empty()) s->notes.push_back(note);
  if (layout_note != nullptr) *layout_note = std::move(note);
  return s;
}

AttainableSol::AttainableSol(std::vector<core::DeviceInfo> devices, AttainableSolDeps deps)
    : devices_(std::move(devices)),
      deps_(std::move(deps)),
      db_(ceiling::parse_gpu_database(
          deps_.gpu_specs_json.empty() ? ceiling::default_gpu_specs_json() : deps_.gpu_specs_json,
          deps_.gpu_specs_json.empty() ? "built-in GPU specs" : "GPU spec file")),
      sm_clock_mhz_(std::make_unique<std::atomic<double>[]>(devices_.size())),
      snapshot_(std::make_shared<AttainableSnapshot>()) {
  if (!deps_.http) deps_.http = net::make_loopback_http_client();
  if (!deps_.now_s) deps_.now_s = steady_seconds;
  deps_.refresh_interval_s = std::clamp(deps_.refresh_interval_s, kMinRefreshS, kMaxRefreshS);
  if (std::isnan(deps_.refresh_interval_s)) deps_.refresh_interval_s = 5.0;
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    sm_clock_mhz_[i].store(std::numeric_limits<double>::quiet_NaN(), std::memory_order_relaxed);
  }
  discovery_ = std::make_unique<workload::WorkloadDiscovery>(*deps_.http, deps_.discovery, deps_.declared);
}

AttainableSol::~AttainableSol() {
  stop();
}

void AttainableSol::start() {
  if (thread_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stop_requested_ = false;
  }
  thread_ = std::thread([this] { run_thread(); });
}

void AttainableSol::stop() {
  {
    const std::lock_guard lock(mutex_);
    stop_requested_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AttainableSol::run_thread() {
  // The thread's entry point: a programmer error (an exception) ends the refreshes, says why, and leaves the
  // figures unknown; the sampling goes on.
  core::ThreadFault fault;
  const bool returned = core::guarded_run(
      "attainable SOL",
      [this] {
        const auto interval = std::chrono::duration<double>(deps_.refresh_interval_s);
        std::unique_lock lock(mutex_);
        while (!stop_requested_) {
          lock.unlock();
          refresh_now();
          lock.lock();
          wake_.wait_for(lock, interval, [this] { return stop_requested_; });
        }
      },
      &fault);
  if (returned) return;
  (void)core::guarded_run("attainable SOL", [&] {
    auto failed = std::make_shared<AttainableSnapshot>();
    for (const auto& d : devices_) {
      failed->devices.push_back(AttainableFigures{.device_index = d.index, .description = fault.text()});
    }
    const std::lock_guard lock(mutex_);
    snapshot_ = std::move(failed);
  });
}

auto AttainableSol::slot_of(std::uint32_t device_index) const -> std::optional<std::size_t> {
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i].index == device_index) return i;
  }
  return std::nullopt;
}

auto AttainableSol::model_arch(const std::string& config_path) -> const core::Result<ceiling::ModelArch>& {
  auto it = arch_cache_.find(config_path);
  if (it != arch_cache_.end()) return it->second;
  return arch_cache_.emplace(config_path, load_model_arch(config_path)).first->second;
}

auto AttainableSol::figures_for(std::size_t slot, const workload::Workload& w) -> AttainableFigures {
  const core::DeviceInfo& device = devices_[slot];
  AttainableFigures f{.device_index = device.index, .description = w.status};
  if (w.source == workload::WorkloadSource::None) return f;  // the status says why and what to do
  auto no_ceiling = [&f](const std::string& why) {
    f.ceiling_note = "no ceiling: " + why;
    f.description += "; " + f.ceiling_note;
    return f;
  };
  if (!db_) return no_ceiling(db_.error().describe());
  if (w.config_path.empty()) {
    return no_ceiling(w.config_problem.empty() ? "no config.json found for the model" : w.config_problem);
  }
  if (!w.shape) {
    return no_ceiling(w.metrics_problem.empty() ? "no request running (the engine is idle)"
                                                : "no live shape: " + w.metrics_problem);
  }
  auto gpu = ceiling::find_gpu(*db_, device.name);
  if (!gpu) {
    return no_ceiling(core::device_label(device) + " ('" + device.name +
                      "') is not in the GPU spec database");
  }
  // A MIG instance is modelled against its own share of the GPU's SMs and memory slices.
  const auto spec = ceiling::mig_instance_spec(**gpu, device);
  if (!spec) return no_ceiling(spec.error().describe());
  const auto& arch = model_arch(w.config_path);
  if (!arch) return no_ceiling(arch.error().describe());
  const double clock_mhz = sm_clock_mhz_[slot].load(std::memory_order_relaxed);
  if (w.serve) {
    serving_figures(*spec, *arch, w, clock_mhz, f);
    return f;
  }
  std::string layout_note;
  auto c = evaluate_workload(*db_, *spec, *arch, w, clock_mhz, &layout_note);
  if (!c) return no_ceiling(c.error().describe());
  f.compute_sol_pct = c->tensor_activity_pct;  // what the tensor-pipe counter reads (2.7)
  f.useful_compute_sol_pct = c->useful_compute_sol_pct;
  f.memory_sol_pct = c->memory_sol_pct;
  f.limiter = c->limiter;
  f.ceiling_note = fmt::format(
      "{}, {} on {} at {:.0f} MHz: attainable compute {:.1f}% (tensor-pipe activity; useful "
      "{:.1f}%), memory {:.1f}%, limited by {}",
      shape_text(*w.shape), layout_text(*c), spec->id, c->sm_clock_mhz, c->tensor_activity_pct,
      c->useful_compute_sol_pct, c->memory_sol_pct, limiter_text(c->limiter));
  f.ceiling_note += "; " + dtypes_brief(c->dtypes);
  if (!layout_note.empty()) f.ceiling_note += "; " + layout_note;
  f.description += "; " + f.ceiling_note;
  return f;
}

void AttainableSol::serving_figures(const ceiling::GpuSpec& gpu, const ceiling::ModelArch& arch,
                                    const workload::Workload& w, double clock_mhz, AttainableFigures& f) {
  std::string layout_note;
  auto s = evaluate_workload_serving(*db_, gpu, arch, w, clock_mhz, &layout_note);
  if (!s) {
    f.ceiling_note = "no ceiling: " + s.error().describe();
    f.description += "; " + f.ceiling_note;
    return;
  }
  const ceiling::Ceiling& step = s->prefill_step;
  f.compute_sol_pct = s->activity_compute_sol_pct;
  f.useful_compute_sol_pct = s->useful_compute_sol_pct;
  f.memory_sol_pct = s->memory_sol_pct;
  f.limiter = s->limiter;
  f.ceiling_note = fmt::format(
      "serving isl {} osl {} concurrency {}, budget {}{}, {} on {} at {:.0f} MHz: attainable compute "
      "{:.1f}% (useful {:.1f}%), memory {:.1f}%, limited by {}; prefill {:.0f}% of the time",
      s->traffic.input_tokens, s->traffic.output_tokens, s->traffic.concurrency,
      s->traffic.max_batched_tokens, s->default_budget ? " (vLLM default)" : "", layout_text(step), gpu.id,
      step.sm_clock_mhz, s->activity_compute_sol_pct, s->useful_compute_sol_pct, s->memory_sol_pct,
      limiter_text(s->limiter), s->prefill_time_share * core::kPercent);
  const double engine_flops = w.live.engine_flops_per_s;
  if (std::isfinite(engine_flops) && step.peak_flops_per_s > 0) {
    f.engine_mfu_pct = engine_flops / step.peak_flops_per_s * core::kPercent;
    f.ceiling_note += fmt::format("; engine's own FLOP estimate {:.1f} TFLOP/s per GPU = MFU {:.1f}%",
                                  engine_flops / 1e12, f.engine_mfu_pct);
  }
  f.ceiling_note += "; " + dtypes_brief(step.dtypes);
  if (!layout_note.empty()) f.ceiling_note += "; " + layout_note;
  f.description += "; " + f.ceiling_note;
}

void AttainableSol::refresh_now() {
  // A config.json that failed to read or parse is tried again on the next pass (it may be downloaded later).
  std::erase_if(arch_cache_, [](const auto& entry) { return !entry.second.has_value(); });
  std::vector<workload::GpuProcesses> gpus;
  std::vector<std::string> pid_errors(devices_.size());
  gpus.reserve(devices_.size());
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    auto pids = deps_.pids(devices_[i].index);
    if (!pids)
      pid_errors[i] = "cannot list the processes of GPU " + std::to_string(devices_[i].index) + ": " +
                      pids.error().describe();
    gpus.push_back(
        workload::GpuProcesses{devices_[i].index, pids ? std::move(*pids) : std::vector<std::int32_t>{}});
  }
  auto snapshot = std::make_shared<AttainableSnapshot>();
  snapshot->workloads = discovery_->refresh(gpus, deps_.now_s());
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    snapshot->devices.push_back(pid_errors[i].empty() ? figures_for(i, snapshot->workloads[i])
                                                      : AttainableFigures{.device_index = devices_[i].index,
                                                                          .description = pid_errors[i]});
  }
  const std::lock_guard lock(mutex_);
  snapshot->pass = snapshot_->pass + 1;
  snapshot_ = std::move(snapshot);
}

void AttainableSol::annotate(core::RawSample& sample) {
  const auto slot = slot_of(sample.device_index);
  if (!slot) return;
  const double clock_mhz = sample.value(core::MetricId::SmClockMhz);
  if (!std::isnan(clock_mhz)) sm_clock_mhz_[*slot].store(clock_mhz, std::memory_order_relaxed);
  const std::lock_guard lock(mutex_);
  if (*slot >= snapshot_->devices.size()) {
    sample.attainable_compute_sol_pct = core::kUnknown;
    sample.attainable_memory_sol_pct = core::kUnknown;
    sample.attainable_limiter = core::Limiter::kCount;
    return;
  }
  const AttainableFigures& f = snapshot_->devices[*slot];
  sample.attainable_compute_sol_pct = f.compute_sol_pct;
  sample.attainable_memory_sol_pct = f.memory_sol_pct;
  sample.attainable_limiter = f.limiter;
}

auto AttainableSol::annotator() -> std::function<void(core::RawSample&)> {
  return [this](core::RawSample& sample) { annotate(sample); };
}

auto AttainableSol::snapshot() const -> std::shared_ptr<const AttainableSnapshot> {
  const std::lock_guard lock(mutex_);
  return snapshot_;
}

auto AttainableSol::description_of(std::uint32_t device_index) const -> std::string {
  const auto slot = slot_of(device_index);
  const std::lock_guard lock(mutex_);
  if (!slot || *slot >= snapshot_->devices.size()) return {};
  return snapshot_->devices[*slot].description;
}

}  // namespace solscope::app
