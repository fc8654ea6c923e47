#include "runtime/process_refresh.hpp"

#include <condition_variable>
#include <mutex>
#include <utility>

namespace solscope::app {

struct ProcessRefresher::Mailbox {
  std::mutex mutex;
  std::condition_variable wake;
  bool stop = false;
  std::uint64_t answered_round = 0;                  ///< the round of `answer`; 0 before the first
  std::optional<std::vector<DeviceListing>> answer;  ///< nullopt: the source lists no processes
};

namespace {

/// The engine thread's whole share of a refresh: each device's process list. nullopt when the source has no
/// ProcessLister; a device whose query fails is left out (its last rows stay).
auto list_devices(sources::CounterSource& source, const std::vector<std::uint32_t>& devices)
    -> std::optional<std::vector<DeviceListing>> {
  auto* lister = source.process_lister();
  if (lister == nullptr) return std::nullopt;
  std::vector<DeviceListing> out;
  out.reserve(devices.size());
  for (const std::uint32_t device : devices) {
    auto listed = lister->processes_on(device);
    if (listed) out.push_back(DeviceListing{.device = device, .processes = std::move(*listed)});
  }
  return out;
}

}  // namespace

ProcessRefresher::ProcessRefresher(BackgroundEngine& engine, core::LiveState& state,
                                   std::function<std::string(std::uint32_t)> notes,
                                   WorkloadRefreshOptions options)
    : engine_(engine),
      state_(state),
      notes_(std::move(notes)),
      options_(std::move(options)),
      mailbox_(std::make_shared<Mailbox>()) {
  thread_ = std::thread([this] {
    (void)core::guarded_run(
        "process refresh", [this] { run(); }, fault_.get());
  });
}

ProcessRefresher::ProcessRefresher(BackgroundEngine& engine, core::LiveState& state,
                                   std::function<std::string(std::uint32_t)> notes,
                                   std::chrono::milliseconds period)
    : ProcessRefresher(engine, state, std::move(notes), WorkloadRefreshOptions{.period = period}) {}

ProcessRefresher::~ProcessRefresher() {
  {
    const std::scoped_lock lock(mailbox_->mutex);
    mailbox_->stop = true;
  }
  mailbox_->wake.notify_all();
  thread_.join();
}

auto ProcessRefresher::list_on_engine(std::uint64_t round) -> std::optional<std::vector<DeviceListing>> {
  std::vector<std::uint32_t> devices;
  for (const auto& device : state_.devices()) devices.push_back(device.info.index);
  engine_.post([mailbox = mailbox_, fault = fault_, devices = std::move(devices),
                round](sources::CounterSource& source) {
    if (fault->failed()) return;
    (void)core::guarded_run(
        "process refresh",
        [&] {
          auto answer = list_devices(source, devices);
          const std::scoped_lock lock(mailbox->mutex);
          mailbox->answer = std::move(answer);
          mailbox->answered_round = round;
        },
        fault.get());
    mailbox->wake.notify_all();
  });
  std::unique_lock lock(mailbox_->mutex);
  // The engine runs posted jobs between two polls (at most 250 ms apart); a round it has not answered
  // within a period is dropped (its late answer is ignored: the round number moved on).
  mailbox_->wake.wait_for(lock, options_.period, [&] {
    return mailbox_->stop || mailbox_->answered_round == round || fault_->failed() || engine_.done();
  });
  if (mailbox_->answered_round != round) return std::nullopt;
  return std::exchange(mailbox_->answer, std::nullopt);
}

void ProcessRefresher::publish(const std::vector<DeviceListing>& listings) {
  const NodeFacts facts = gather_node_facts(options_);
  std::vector<core::DeviceInfo> infos;
  for (const auto& device : state_.devices()) infos.push_back(device.info);
  for (auto& [device, resolved] : attribute_listings(infos, listings, facts, options_)) {
    state_.set_processes(device, std::move(resolved.processes));
    const bool changed = !same_workloads(last_[device], resolved.workloads);
    last_[device] = resolved.workloads;
    state_.set_workloads(device, std::move(resolved.workloads));
    if (changed && options_.on_change) options_.on_change(device, state_.newest_ns(), last_[device]);
  }
}

void ProcessRefresher::run() {
  std::uint64_t round = 0;
  while (!fault_->failed()) {
    {
      const std::scoped_lock lock(mailbox_->mutex);
      if (mailbox_->stop) return;
    }
    if (!engine_.done()) {
      if (auto listings = list_on_engine(++round)) publish(*listings);
    }
    if (notes_) {
      for (const auto& device : state_.devices())
        state_.set_workload_note(device.info.index, notes_(device.info.index));
    }
    std::unique_lock lock(mailbox_->mutex);
    mailbox_->wake.wait_for(lock, options_.period, [this] { return mailbox_->stop; });
  }
}

}  // namespace solscope::app
