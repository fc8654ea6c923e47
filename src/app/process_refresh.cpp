#include "app/process_refresh.hpp"

#include <utility>

#ifdef SOLSCOPE_HAVE_NVIDIA
#include "sources/nvidia/nvidia_source.hpp"
#endif

namespace solscope::app {
namespace {

/// NVML's processes of every device of `state`, when `source` is the NVIDIA source; stores them.
void refresh_processes([[maybe_unused]] sources::CounterSource& source,
                       [[maybe_unused]] core::LiveState& state) {
#ifdef SOLSCOPE_HAVE_NVIDIA
  auto* nvidia = dynamic_cast<nvidia::NvidiaSource*>(&source);
  if (nvidia == nullptr) return;
  for (const auto& device : state.devices()) {
    auto listed = nvidia->processes(device.info.index);
    if (!listed) continue;  // a lost device or a query NVML refuses: keep the last list
    std::vector<PidMemory> entries;
    for (const auto& p : *listed) {
      const bool known = p.used_memory_bytes != nvidia::kUnknownMemory;
      entries.push_back(PidMemory{static_cast<std::int32_t>(p.pid), known ? p.used_memory_bytes : 0});
    }
    state.set_processes(device.info.index, attribute_processes(entries, "/proc", workload::system_user_name));
  }
#endif
}

}  // namespace

auto attribute_processes(const std::vector<PidMemory>& entries, const std::filesystem::path& procfs_root,
                         const workload::UserNameLookup& user_name) -> std::vector<core::GpuProcess> {
  std::vector<core::GpuProcess> out;
  out.reserve(entries.size());
  for (const auto& e : entries) {
    auto info = workload::read_process_info(procfs_root, e.pid, user_name);
    std::string command = info.command.empty() && !info.name.empty() ? "[" + info.name + "]" : info.command;
    out.push_back(core::GpuProcess{.pid = e.pid,
                                   .user = std::move(info.user),
                                   .gpu_memory_bytes = e.gpu_memory_bytes,
                                   .command = std::move(command),
                                   .container_id = std::move(info.container_id)});
  }
  return out;
}

ProcessRefresher::ProcessRefresher(BackgroundEngine& engine, core::LiveState& state,
                                   std::function<std::string(std::uint32_t)> notes,
                                   std::chrono::milliseconds period)
    : engine_(engine), state_(state), notes_(std::move(notes)), period_(period) {
  thread_ = std::thread([this] {
    (void)core::guarded_run(
        "process refresh", [this] { run(); }, fault_.get());
  });
}

ProcessRefresher::~ProcessRefresher() {
  {
    const std::scoped_lock lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ProcessRefresher::run() {
  std::unique_lock lock(mutex_);
  while (!stop_ && !fault_->failed()) {
    if (!engine_.done()) {
      engine_.post([state = &state_, fault = fault_](sources::CounterSource& source) {
        if (fault->failed()) return;
        (void)core::guarded_run(
            "process refresh", [&] { refresh_processes(source, *state); }, fault.get());
      });
    }
    if (notes_) {
      for (const auto& device : state_.devices())
        state_.set_workload_note(device.info.index, notes_(device.info.index));
    }
    wake_.wait_for(lock, period_, [this] { return stop_; });
  }
}

}  // namespace solscope::app
