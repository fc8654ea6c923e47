#include "runtime/process_refresh.hpp"

#include <utility>

namespace solscope::app {
namespace {

/// The processes of every device of `state`, when `source` can list them; stores them.
void refresh_processes(sources::CounterSource& source, core::LiveState& state) {
  auto* lister = source.process_lister();
  if (lister == nullptr) return;
  for (const auto& device : state.devices()) {
    auto listed = lister->processes_on(device.info.index);
    if (!listed) continue;  // a lost device or a query the source refuses: keep the last list
    std::vector<PidMemory> entries;
    for (const auto& p : *listed) entries.push_back(PidMemory{p.pid, p.gpu_memory_bytes.value_or(0)});
    state.set_processes(device.info.index, attribute_processes(entries, "/proc", workload::system_user_name));
  }
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
