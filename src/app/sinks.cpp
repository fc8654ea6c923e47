#include "app/sinks.hpp"

#include <nlohmann/json.hpp>

#include "trace/json_format.hpp"

namespace solscope::app {

auto JsonLinesSink::begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> {
  for (const auto& d : devices) devices_[d.index] = d;
  return core::ok();
}

auto JsonLinesSink::on_sample(const core::RawSample& /*raw*/, const core::SolSample& sol)
    -> core::Result<void> {
  auto it = devices_.find(sol.device_index);
  out_ << trace::sol_sample_to_json(sol, it != devices_.end() ? &it->second : nullptr).dump() << '\n';
  return core::ok();
}

auto JsonLinesSink::flush() -> core::Result<void> {
  out_.flush();
  if (!out_) {
    return core::fail(core::ErrorCode::Unavailable, "cannot write to standard output",
                      "the reader of the pipe went away");
  }
  return core::ok();
}

auto TraceSink::begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> {
  return writer_.write_devices(devices);
}

auto TraceSink::on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> {
  return writer_.append(raw, sol);
}

}  // namespace solscope::app
