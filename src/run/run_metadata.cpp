#include "run/run_metadata.hpp"

#include <chrono>

namespace solscope::app {
namespace {

auto is_plain(char c) -> bool {
  const auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
         std::string_view("_./=:,+@%-").find(c) != std::string_view::npos;
}

}  // namespace

auto shell_quote(const std::vector<std::string>& argv) -> std::string {
  std::string out;
  for (const std::string& word : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !word.empty();
    for (char c : word) plain = plain && is_plain(c);
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

auto join_indices(const std::set<std::uint32_t>& devices) -> std::string {
  std::string out;
  for (const std::uint32_t d : devices) out += (out.empty() ? "" : ",") + std::to_string(d);
  return out;
}

auto cuda_visible_summary(const std::optional<std::string>& value) -> std::string {
  if (!value) return "(unset)";
  return value->empty() ? "(empty)" : *value;
}

auto realtime_now_ns() -> std::int64_t {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

auto write_run_start(trace::Writer& writer, const std::vector<std::string>& argv, std::int64_t start_ns,
                     const std::string& cuda_visible) -> core::Result<void> {
  if (auto done = writer.set_metadata(kMetaRunCommand, shell_quote(argv)); !done) return done;
  if (auto done = writer.set_metadata(kMetaRunStartNs, std::to_string(start_ns)); !done) return done;
  return writer.set_metadata(kMetaRunCudaVisible, cuda_visible);
}

auto write_run_end(trace::Writer& writer, std::int64_t end_ns, const ChildExit& exit,
                   const std::set<std::uint32_t>& gpus) -> core::Result<void> {
  if (auto done = writer.set_metadata(kMetaRunEndNs, std::to_string(end_ns)); !done) return done;
  if (auto done = writer.set_metadata(kMetaRunExitStatus, exit.describe()); !done) return done;
  if (auto done = writer.set_metadata(kMetaRunExitCode, std::to_string(exit.solscope_code())); !done)
    return done;
  return writer.set_metadata(kMetaRunGpus, join_indices(gpus));
}

}  // namespace solscope::app
