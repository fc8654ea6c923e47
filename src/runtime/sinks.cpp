#include "runtime/sinks.hpp"

#include <poll.h>
#include <unistd.h>

#include <iostream>

#include "wire/sample_json.hpp"

namespace solscope::app {
namespace {

constexpr const char* kReaderGone = "the reader of standard output went away";

/// True when standard output is a pipe whose reading end is closed: Linux reports POLLERR on such a write end
/// (fs/pipe.c, pipe_poll). The write that failed already saw EPIPE, but a stream keeps only its failbit.
auto stdout_reader_gone() -> bool {
  pollfd p{.fd = STDOUT_FILENO, .events = 0, .revents = 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

}  // namespace

auto flush_output(std::ostream& out) -> core::Result<void> {
  out.flush();
  if (out) return core::ok();
  if (&out == &std::cout && stdout_reader_gone())
    return core::fail(core::ErrorCode::Unavailable, kReaderGone);
  return core::fail(core::ErrorCode::Unavailable, "cannot write to standard output",
                    "is the disk full, or the terminal gone?");
}

auto is_reader_gone(const core::Error& error) -> bool {
  return error.message == kReaderGone;
}

auto JsonLinesSink::begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> {
  for (const auto& d : devices) devices_[d.index] = d;
  return core::ok();
}

auto JsonLinesSink::on_sample(const core::RawSample& /*raw*/, const core::SolSample& sol)
    -> core::Result<void> {
  auto it = devices_.find(sol.device_index);
  line_.clear();
  wire::append_sol_sample_json(line_, sol, it != devices_.end() ? &it->second : nullptr);
  line_ += '\n';
  out_.write(line_.data(), static_cast<std::streamsize>(line_.size()));
  return core::ok();
}

auto JsonLinesSink::flush() -> core::Result<void> {
  return flush_output(out_);
}

auto TraceSink::begin(const std::vector<core::DeviceInfo>& devices) -> core::Result<void> {
  return writer_.write_devices(devices);
}

auto TraceSink::on_sample(const core::RawSample& raw, const core::SolSample& sol) -> core::Result<void> {
  return writer_.append(raw, sol);
}

}  // namespace solscope::app
