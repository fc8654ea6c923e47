#include "cli/profile/profile_view.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "wire/json_fields.hpp"

namespace solscope::app {
namespace {

constexpr std::int64_t kNsPerS = 1'000'000'000;

auto shown(std::string text) -> std::string {
  return terminal_safe(std::move(text));
}

/// "every GPU" for an empty (or absent) list, else "GPU 0" / "GPUs 0, 2".
auto gpus_text(const nlohmann::json& devices) -> std::string {
  std::string list;
  std::size_t count = 0;
  if (devices.is_array()) {
    for (const auto& d : devices) {
      if (!d.is_number_integer()) continue;
      list += (list.empty() ? "" : ", ") + std::to_string(d.get<std::int64_t>());
      ++count;
    }
  }
  if (count == 0) return "every GPU";
  return (count == 1 ? "GPU " : "GPUs ") + list;
}

auto manual_line(const nlohmann::json& status, std::int64_t now_ns) -> std::string {
  const auto it = status.find("manual");
  if (it == status.end() || !it->is_object()) return "Manual pause: none\n";
  const nlohmann::json& m = *it;
  const auto until_ns = wire::integer_field<std::int64_t>(m, "until_ns", 0);
  std::string left;
  if (until_ns > 0 && now_ns > 0) left = " (" + span_text(until_ns - now_ns) + " left)";
  return fmt::format("Manual pause: {} by {}, since {} until {}{}\n",
                     gpus_text(m.value("devices", nlohmann::json())), shown(wire::string_field(m, "by", "?")),
                     shown(wire::string_field(m, "since", "?")), shown(wire::string_field(m, "until", "?")),
                     left);
}

auto device_line(const nlohmann::json& d) -> std::string {
  const auto index = wire::integer_field<std::int64_t>(d, "index", -1);
  const auto flag = d.is_object() ? d.find("paused") : d.end();
  const bool paused = flag != d.end() && flag->is_boolean() && flag->get<bool>();
  if (!paused) return fmt::format("  GPU {}: not paused\n", index);
  std::string line = fmt::format("  GPU {}: paused ({}", index, shown(wire::string_field(d, "reason", "?")));
  if (const std::string detail = wire::string_field(d, "detail"); !detail.empty())
    line += ": " + shown(detail);
  line += ")";
  if (const std::string until = wire::string_field(d, "until"); !until.empty())
    line += " until " + shown(until);
  return line + "\n";
}

auto profilers_text(const nlohmann::json& status) -> std::string {
  const auto it = status.find("profilers");
  if (it == status.end() || !it->is_array() || it->empty()) return "Profilers seen: none\n";
  std::string text = "Profilers seen:\n";
  for (const auto& p : *it) {
    text += fmt::format("  {} ({}) on {}\n", shown(wire::string_field(p, "what", "?")),
                        shown(wire::string_field(p, "reason", "?")),
                        gpus_text(p.is_object() ? p.value("devices", nlohmann::json()) : nlohmann::json()));
  }
  return text;
}

}  // namespace

auto terminal_safe(std::string text) -> std::string {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; },
      '?');
  return text;
}

auto span_text(std::int64_t ns) -> std::string {
  const std::int64_t s = std::max<std::int64_t>(ns, 0) / kNsPerS;
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return fmt::format("{}m {}s", s / 60, s % 60);
  return fmt::format("{}h {}m {}s", s / 3600, s % 3600 / 60, s % 60);
}

auto render_profiling_status(const nlohmann::json& status) -> std::string {
  const auto now_ns = wire::integer_field<std::int64_t>(status, "now_ns", 0);
  std::string text = manual_line(status, now_ns);
  text += "Policy: " + shown(wire::string_field(status, "policy", "?")) + "\n";
  const auto devices = status.find("devices");
  if (devices != status.end() && devices->is_array() && !devices->empty()) {
    text += "GPUs:\n";
    for (const auto& d : *devices) text += device_line(d);
  }
  return text + profilers_text(status);
}

}  // namespace solscope::app
